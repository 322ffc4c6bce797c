package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func TestEvaluateExpressionFunction_known(t *testing.T) {
	t.Parallel()
	const call = "provider::mediaplatform::evaluate_expression"
	testFunctions(t, functionOutputsStep(`
locals {
  # Read-only unless the clip is approved by someone, or it is an archived file
  # that is not under legal hold.
  rule = jsonencode({
    or = [
      { and = [
        { attribute = "status", op = "equals", value = "approved" },
        { attribute = "approver", op = "isSet" },
      ] },
      { and = [
        { attribute = "assetType", op = "in", values = ["archivedfile"] },
        { or = [
          { attribute = "legalHold", op = "equals", value = null },
          { attribute = "legalHold", op = "equals", value = "no" },
        ] },
      ] },
    ]
  })
}
`,
		functionOutput{"approved", call + `(local.rule, { status = "approved", approver = "ana" })`, knownvalue.Bool(true)},
		functionOutput{"approved_without_approver", call + `(local.rule, { status = "approved", approver = "" })`, knownvalue.Bool(false)},
		functionOutput{"archived_no_hold", call + `(local.rule, { assetType = "archivedfile" })`, knownvalue.Bool(true)},
		functionOutput{"archived_hold_no", call + `(local.rule, { assetType = "archivedfile", legalHold = "no" })`, knownvalue.Bool(true)},
		functionOutput{"archived_on_hold", call + `(local.rule, { assetType = "archivedfile", legalHold = "yes" })`, knownvalue.Bool(false)},
		functionOutput{"masterclip", call + `(local.rule, { assetType = "masterclip" })`, knownvalue.Bool(false)},
		functionOutput{"empty_and", call + `("{\"and\": []}", {})`, knownvalue.Bool(true)},
		functionOutput{"empty_or", call + `("{\"or\": []}", {})`, knownvalue.Bool(false)},
	))
}

func TestEvaluateExpressionFunction_emptyStringRule(t *testing.T) {
	t.Parallel()
	const call = "provider::mediaplatform::evaluate_expression"
	testFunctions(t, functionOutputsStep(`
locals {
  is_set       = jsonencode({ attribute = "comment", op = "isSet" })
  equals_empty = jsonencode({ attribute = "comment", op = "equals", value = "" })
  equals_null  = jsonencode({ attribute = "comment", op = "equals", value = null })
  in_empty     = jsonencode({ attribute = "comment", op = "in", values = ["red", ""] })
}
`,
		functionOutput{"missing_is_set", call + `(local.is_set, { color = "red" })`, knownvalue.Bool(false)},
		functionOutput{"null_element_is_set", call + `(local.is_set, { comment = null })`, knownvalue.Bool(false)},
		functionOutput{"null_map_is_set", call + `(local.is_set, null)`, knownvalue.Bool(false)},
		functionOutput{"value_is_set", call + `(local.is_set, { comment = "note" })`, knownvalue.Bool(true)},
		functionOutput{"missing_equals_empty", call + `(local.equals_empty, {})`, knownvalue.Bool(true)},
		functionOutput{"null_element_equals_null", call + `(local.equals_null, { comment = null })`, knownvalue.Bool(true)},
		functionOutput{"null_map_in_list_with_empty", call + `(local.in_empty, null)`, knownvalue.Bool(true)},
		functionOutput{"value_equals_null", call + `(local.equals_null, { comment = "note" })`, knownvalue.Bool(false)},
	))
}

func TestEvaluateExpressionFunction_unknown(t *testing.T) {
	t.Parallel()

	testFunctions(t, resource.TestStep{
		Config: `
resource "terraform_data" "status" {
  input = "approved"
}

output "unknown_expression" {
  value = provider::mediaplatform::evaluate_expression(
    jsonencode({ attribute = "status", op = "equals", value = terraform_data.status.output }),
    { status = "approved" },
  )
}
output "unknown_value" {
  value = provider::mediaplatform::evaluate_expression(
    jsonencode({ attribute = "status", op = "equals", value = "approved" }),
    { status = terraform_data.status.output },
  )
}
`,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownOutputValue("unknown_expression"),
				plancheck.ExpectUnknownOutputValue("unknown_value"),
			},
		},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownOutputValue("unknown_expression", knownvalue.Bool(true)),
			statecheck.ExpectKnownOutputValue("unknown_value", knownvalue.Bool(true)),
		},
	})
}

func TestEvaluateExpressionFunction_errors(t *testing.T) {
	t.Parallel()

	testFunctions(t, []resource.TestStep{
		{
			Config: `
output "x" {
  value = provider::mediaplatform::evaluate_expression(
    jsonencode({ and = [
      { attribute = "status", op = "isSet" },
      { attribute = "status", op = "startsWith", value = "app" },
    ] }),
    { status = "approved" },
  )
}
`,
			ExpectError: regexp.MustCompile(`(?s)Invalid value for "expression" parameter:\s+at\s+\$\.and\[1\]\.op:\s+unknown\s+operator\s+"startsWith"`),
		},
		{
			Config: `
output "x" {
  value = provider::mediaplatform::evaluate_expression("{\"and\": [", {})
}
`,
			ExpectError: regexp.MustCompile(`(?s)Invalid value for "expression" parameter:\s+not\s+valid\s+JSON`),
		},
		{
			Config: `
output "x" {
  value = provider::mediaplatform::evaluate_expression(jsonencode({ not = [] }), {})
}
`,
			ExpectError: regexp.MustCompile(`(?s)Invalid value for "expression" parameter:\s+object\s+is\s+neither\s+an\s+and\s+clause,\s+an\s+or\s+clause\s+nor\s+a\s+term`),
		},
		{
			Config: `
output "x" {
  value = provider::mediaplatform::evaluate_expression(null, {})
}
`,
			ExpectError: regexp.MustCompile(`(?s)Invalid value for "expression" parameter.*must not be null`),
		},
	}...)
}
