package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

func TestEvaluateExpressionFunction_known(t *testing.T) {
	t.Parallel()

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: functionsOnlyProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
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

output "approved" {
  value = provider::mediaplatform::evaluate_expression(local.rule, { status = "approved", approver = "ana" })
}
output "approved_without_approver" {
  value = provider::mediaplatform::evaluate_expression(local.rule, { status = "approved", approver = "" })
}
output "archived_no_hold" {
  value = provider::mediaplatform::evaluate_expression(local.rule, { assetType = "archivedfile" })
}
output "archived_hold_no" {
  value = provider::mediaplatform::evaluate_expression(local.rule, { assetType = "archivedfile", legalHold = "no" })
}
output "archived_on_hold" {
  value = provider::mediaplatform::evaluate_expression(local.rule, { assetType = "archivedfile", legalHold = "yes" })
}
output "masterclip" {
  value = provider::mediaplatform::evaluate_expression(local.rule, { assetType = "masterclip" })
}
output "empty_and" {
  value = provider::mediaplatform::evaluate_expression("{\"and\": []}", {})
}
output "empty_or" {
  value = provider::mediaplatform::evaluate_expression("{\"or\": []}", {})
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("approved", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("approved_without_approver", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("archived_no_hold", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("archived_hold_no", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("archived_on_hold", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("masterclip", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("empty_and", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("empty_or", knownvalue.Bool(false)),
			},
		}},
	})
}

func TestEvaluateExpressionFunction_emptyStringRule(t *testing.T) {
	t.Parallel()

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: functionsOnlyProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
locals {
  is_set       = jsonencode({ attribute = "comment", op = "isSet" })
  equals_empty = jsonencode({ attribute = "comment", op = "equals", value = "" })
  equals_null  = jsonencode({ attribute = "comment", op = "equals", value = null })
  in_empty     = jsonencode({ attribute = "comment", op = "in", values = ["red", ""] })
}

output "missing_is_set" {
  value = provider::mediaplatform::evaluate_expression(local.is_set, { color = "red" })
}
output "null_element_is_set" {
  value = provider::mediaplatform::evaluate_expression(local.is_set, { comment = null })
}
output "null_map_is_set" {
  value = provider::mediaplatform::evaluate_expression(local.is_set, null)
}
output "value_is_set" {
  value = provider::mediaplatform::evaluate_expression(local.is_set, { comment = "note" })
}
output "missing_equals_empty" {
  value = provider::mediaplatform::evaluate_expression(local.equals_empty, {})
}
output "null_element_equals_null" {
  value = provider::mediaplatform::evaluate_expression(local.equals_null, { comment = null })
}
output "null_map_in_list_with_empty" {
  value = provider::mediaplatform::evaluate_expression(local.in_empty, null)
}
output "value_equals_null" {
  value = provider::mediaplatform::evaluate_expression(local.equals_null, { comment = "note" })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("missing_is_set", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("null_element_is_set", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("null_map_is_set", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("value_is_set", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("missing_equals_empty", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("null_element_equals_null", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("null_map_in_list_with_empty", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("value_equals_null", knownvalue.Bool(false)),
			},
		}},
	})
}

func TestEvaluateExpressionFunction_unknown(t *testing.T) {
	t.Parallel()

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: functionsOnlyProviderFactories,
		Steps: []resource.TestStep{{
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
		}},
	})
}

func TestEvaluateExpressionFunction_errors(t *testing.T) {
	t.Parallel()

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: functionsOnlyProviderFactories,
		Steps: []resource.TestStep{
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
		},
	})
}
