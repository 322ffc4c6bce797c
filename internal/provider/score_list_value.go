package provider

// The scores attribute of mediaplatform_scores, built for lists of tens of thousands of
// scores. The framework holds a data source's result as one Terraform value; after
// Read it also turns every root attribute into its attribute values (basetypes.ListValue
// of basetypes.ObjectValue, two maps each) to look for semantic equality, which a
// computed attribute without a configured value never has. For 20,000 scores those
// values are about 130 MB of live heap, more than the result itself. The list's type
// below keeps the Terraform value as it is and builds the attribute values only when
// something asks for them (ToListValue), and the data source builds the Terraform
// value field by field instead of through the framework's reflection.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var (
	_ basetypes.ListTypable  = scoreListType{}
	_ basetypes.ListValuable = scoreListValue{}
)

// scoreListType is a list of score objects whose values stay Terraform values.
type scoreListType struct {
	basetypes.ListType
}

// newScoreListType is the list type of the given score object type.
func newScoreListType(elem attr.Type) scoreListType {
	return scoreListType{basetypes.ListType{ElemType: elem}}
}

func (t scoreListType) String() string {
	return "scoreListType[" + t.ElemType.String() + "]"
}

// Equal is true for a scoreListType of the same elements.
func (t scoreListType) Equal(o attr.Type) bool {
	other, ok := o.(scoreListType)
	return ok && t.ListType.Equal(other.ListType)
}

// ValueFromTerraform keeps the value; it only checks its type.
func (t scoreListType) ValueFromTerraform(ctx context.Context, v tftypes.Value) (attr.Value, error) {
	return t.valueFromTerraform(ctx, v)
}

func (t scoreListType) valueFromTerraform(ctx context.Context, v tftypes.Value) (scoreListValue, error) {
	want := t.TerraformType(ctx)
	if v.Type() == nil {
		v = tftypes.NewValue(want, nil)
	}
	if !v.Type().Equal(want) {
		return scoreListValue{}, fmt.Errorf("can't use %s as value of %s", v.Type(), t)
	}
	return scoreListValue{typ: t, raw: &v}, nil
}

// ValueFromList wraps a list of the framework's values.
func (t scoreListType) ValueFromList(ctx context.Context, in basetypes.ListValue) (basetypes.ListValuable, diag.Diagnostics) {
	var diags diag.Diagnostics
	raw, err := in.ToTerraformValue(ctx)
	if err != nil {
		diags.AddError("Score list conversion error", err.Error())
		return nil, diags
	}
	v, err := t.valueFromTerraform(ctx, raw)
	if err != nil {
		diags.AddError("Score list conversion error", err.Error())
		return nil, diags
	}
	return v, diags
}

// ValueType is the value this type produces.
func (t scoreListType) ValueType(ctx context.Context) attr.Value {
	null := tftypes.NewValue(t.TerraformType(ctx), nil)
	return scoreListValue{typ: t, raw: &null}
}

// scoreListValue is a list of score objects held as the Terraform value it is sent as.
// Copies share raw, which is never changed: two values with the same raw are equal
// without comparing 20,000 objects (the framework compares a result with itself).
type scoreListValue struct {
	typ scoreListType
	raw *tftypes.Value // nil only in the zero value, which is null
}

// newScoreListValue is the known list of the given score objects, each of typ's
// element type (scoreResultModel.terraformValue builds them).
func newScoreListValue(ctx context.Context, typ scoreListType, elems []tftypes.Value) (scoreListValue, error) {
	raw, err := newTerraformValue(typ.TerraformType(ctx), elems)
	if err != nil {
		return scoreListValue{}, err
	}
	return scoreListValue{typ: typ, raw: &raw}, nil
}

// decodedScoreList is the list of count score objects of typ's element type, encoded
// one after the other in elements: the result of a read served without
// encodedResults.
func decodedScoreList(ctx context.Context, typ scoreListType, count int, elements []byte) (scoreListValue, error) {
	list, err := encodedList(count, elements)
	if err != nil {
		return scoreListValue{}, err
	}
	raw, err := (&tfprotov6.DynamicValue{MsgPack: list}).Unmarshal(typ.TerraformType(ctx))
	if err != nil {
		return scoreListValue{}, err
	}
	return typ.valueFromTerraform(ctx, raw)
}

func (v scoreListValue) Type(context.Context) attr.Type { return v.typ }

// terraform is the Terraform value (null for the zero value).
func (v scoreListValue) terraform(ctx context.Context) tftypes.Value {
	if v.raw == nil {
		return tftypes.NewValue(v.typ.TerraformType(ctx), nil)
	}
	return *v.raw
}

func (v scoreListValue) ToTerraformValue(ctx context.Context) (tftypes.Value, error) {
	return v.terraform(ctx), nil
}

func (v scoreListValue) IsNull() bool { return v.raw == nil || v.raw.IsNull() }

func (v scoreListValue) IsUnknown() bool { return v.raw != nil && !v.raw.IsKnown() }

// Equal compares the Terraform values, unless both are copies of one value.
func (v scoreListValue) Equal(o attr.Value) bool {
	other, ok := o.(scoreListValue)
	if !ok || !v.typ.Equal(other.typ) {
		return false
	}
	if v.raw == other.raw {
		return true
	}
	ctx := context.Background()
	return v.terraform(ctx).Equal(other.terraform(ctx))
}

// String is the framework's rendering of the list (built on demand).
func (v scoreListValue) String() string {
	l, diags := v.ToListValue(context.Background())
	if diags.HasError() {
		return "<invalid score list>"
	}
	return l.String()
}

// ToListValue builds the framework's values of the list.
func (v scoreListValue) ToListValue(ctx context.Context) (basetypes.ListValue, diag.Diagnostics) {
	var diags diag.Diagnostics
	l, err := v.typ.ListType.ValueFromTerraform(ctx, v.terraform(ctx))
	if err != nil {
		diags.AddError("Score list conversion error", err.Error())
		return types.ListNull(v.typ.ElemType), diags
	}
	list, ok := l.(basetypes.ListValue)
	if !ok {
		diags.AddError("Score list conversion error", fmt.Sprintf("the list type made a %T", l))
		return types.ListNull(v.typ.ElemType), diags
	}
	return list, diags
}

// terraformValue is the score as a Terraform object of typ (the scores list's element
// type): the value the framework's reflection builds from the model, without the
// reflection and without the framework's intermediate values.
func (m scoreResultModel) terraformValue(ctx context.Context, typ tftypes.Object) (tftypes.Value, error) {
	renderingsType, ok := typ.AttributeTypes["renderings"].(tftypes.List)
	if !ok {
		return tftypes.Value{}, fmt.Errorf("the score type %s has no list of renderings", typ)
	}
	renderingType, ok := renderingsType.ElementType.(tftypes.Object)
	if !ok {
		return tftypes.Value{}, fmt.Errorf("the renderings type %s is not a list of objects", renderingsType)
	}
	var renderings any // null, as the reflection makes a nil slice
	if m.Renderings != nil {
		list := make([]tftypes.Value, 0, len(m.Renderings))
		for _, r := range m.Renderings {
			attrs, err := terraformAttributes(ctx, map[string]attr.Value{"format": r.Format, "pages": r.Pages})
			if err != nil {
				return tftypes.Value{}, err
			}
			v, err := newTerraformValue(renderingType, attrs)
			if err != nil {
				return tftypes.Value{}, err
			}
			list = append(list, v)
		}
		renderings = list
	}
	attrs, err := terraformAttributes(ctx, map[string]attr.Value{
		"id":         m.ID,
		"score_id":   m.ScoreID,
		"score_url":  m.ScoreURL,
		"transpose":  m.Transpose,
		"status":     m.Status,
		"created_at": m.CreatedAt,
		"updated_at": m.UpdatedAt,
		"page_count": m.PageCount,
		"publisher":  m.Publisher,
	})
	if err != nil {
		return tftypes.Value{}, err
	}
	attrs["renderings"], err = newTerraformValue(renderingsType, renderings)
	if err != nil {
		return tftypes.Value{}, err
	}
	return newTerraformValue(typ, attrs)
}

// terraformAttributes converts attribute values to Terraform values, with room for
// one more attribute.
func terraformAttributes(ctx context.Context, values map[string]attr.Value) (map[string]tftypes.Value, error) {
	attrs := make(map[string]tftypes.Value, len(values)+1)
	for name, value := range values {
		v, err := value.ToTerraformValue(ctx)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		attrs[name] = v
	}
	return attrs, nil
}

// newTerraformValue is tftypes.NewValue with an error instead of a panic.
func newTerraformValue(typ tftypes.Type, value any) (tftypes.Value, error) {
	if err := tftypes.ValidateValue(typ, value); err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(typ, value), nil
}
