package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/expression"
)

var _ function.Function = (*evaluateExpressionFunction)(nil)

// NewEvaluateExpressionFunction returns the provider::mediaplatform::evaluate_expression function.
func NewEvaluateExpressionFunction() function.Function {
	return &evaluateExpressionFunction{}
}

// evaluateExpressionFunction evaluates a layout expression (interface specification
// section E) against attribute values; the logic lives in internal/expression.
type evaluateExpressionFunction struct{}

func (f *evaluateExpressionFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "evaluate_expression"
}

func (f *evaluateExpressionFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Evaluates a platform layout expression against attribute values",
		MarkdownDescription: "Evaluates a layout expression, such as a `readOnlyExpressionRule`, a " +
			"`visibilityExpressionRule` or a row-restriction expression from the `mediaplatform_asset_model` " +
			"data source, against a map of attribute values, and returns whether it is true.\n\n" +
			"An expression is JSON:\n\n" +
			"- `{\"and\": [...]}` is true when every expression in the array is true; an empty array is true.\n" +
			"- `{\"or\": [...]}` is true when at least one is true; an empty array is false.\n" +
			"- `{\"attribute\": \"id\", \"op\": \"isSet\"}` is true when the attribute's value is not the empty string.\n" +
			"- `{\"attribute\": \"id\", \"op\": \"equals\", \"value\": \"x\"}` is true when the value is exactly `x` " +
			"(case-sensitive).\n" +
			"- `{\"attribute\": \"id\", \"op\": \"in\", \"values\": [\"x\", \"y\"]}` is true when the value is one of " +
			"the list; a missing or `null` list is empty.\n\n" +
			"Clauses nest to any depth. As the platform specifies, an attribute missing from `values` or `null` " +
			"there has the empty string as its value, and a `null` or missing `value` is the empty string too. " +
			"Attribute ids and operators are case-sensitive. Any other operator, malformed JSON, or an object " +
			"that is not exactly one of the shapes above is an error that names the problem and where it is " +
			"(`$.and[1].op` is the operator of the second expression of the top-level `and`); the whole " +
			"expression is checked, including branches that evaluation would skip. Keys a term does not use " +
			"are ignored.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name: "expression",
				MarkdownDescription: "The expression as JSON text, as the `mediaplatform_asset_model` data source " +
					"returns it, or written with `jsonencode`. It must not be `null`.",
			},
			function.MapParameter{
				Name:           "values",
				ElementType:    types.StringType,
				AllowNullValue: true,
				MarkdownDescription: "Map from attribute id to the attribute's value. A missing or `null` value " +
					"is the empty string; a `null` map means no attribute has a value.",
			},
		},
		Return: function.BoolReturn{},
	}
}

func (f *evaluateExpressionFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var (
		text   string
		values types.Map
	)
	resp.Error = req.Arguments.Get(ctx, &text, &values)
	if resp.Error != nil {
		return
	}

	known := make(map[string]string, len(values.Elements()))
	for k, v := range values.Elements() { // a null map has no elements
		if s, ok := v.(types.String); ok {
			known[k] = s.ValueString() // null is ""
		}
	}

	result, err := expression.Evaluate(text, known)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, expressionErrorText(err))
		return
	}
	resp.Error = resp.Result.Set(ctx, result)
}

// expressionErrorText words an expression error for the argument diagnostic, which
// Terraform already introduces with `Invalid value for "expression" parameter:`.
func expressionErrorText(err error) string {
	var e *expression.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	if e.Path == "$" {
		return e.Err.Error()
	}
	return "at " + e.Path + ": " + e.Err.Error()
}
