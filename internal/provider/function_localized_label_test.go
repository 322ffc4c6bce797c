package provider

import (
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func TestLocalizedLabel_lookup(t *testing.T) {
	t.Parallel()

	full := map[string]string{"en": "Name", "fr": "Nom", "fr-CA": "Nom (CA)", "zh-Hant": "名稱", "zh": "名称", "de-CH": "Name (CH)"}
	tests := []struct {
		name    string
		labels  map[string]string
		culture string
		want    string
		found   bool
	}{
		{"full culture", full, "fr-CA", "Nom (CA)", true},
		{"language when the region has no label", full, "fr-FR", "Nom", true},
		{"language itself", full, "fr", "Nom", true},
		{"en when the language has no label", full, "it-IT", "Name", true},
		{"en for an empty culture", full, "", "Name", true},
		{"en for a blank culture", full, "  ", "Name", true},
		{"none without en", map[string]string{"de": "Name"}, "fr-CA", "", false},
		{"none for no labels", nil, "fr-CA", "", false},
		{"three subtags to two", full, "zh-Hant-TW", "名稱", true},
		{"three subtags to one", map[string]string{"zh": "名称", "en": "Name"}, "zh-Hant-TW", "名称", true},
		{"private use drops the singleton", full, "de-CH-x-phonebk", "Name (CH)", true},
		{"case-insensitive culture", full, "FR-ca", "Nom (CA)", true},
		{"case-insensitive key", map[string]string{"FR-ca": "Nom (CA)", "en": "Name"}, "fr-CA", "Nom (CA)", true},
		{"underscore culture", full, "fr_CA", "Nom (CA)", true},
		{"underscore key", map[string]string{"fr_CA": "Nom (CA)", "en": "Name"}, "fr-CA", "Nom (CA)", true},
		{"underscore truncation", map[string]string{"fr": "Nom"}, "fr_CA", "Nom", true},
		{"exact key preferred over case-insensitive", map[string]string{"fr-ca": "lower", "fr-CA": "exact", "FR-CA": "upper"}, "fr-CA", "exact", true},
		{"case-insensitive tie broken by smallest key", map[string]string{"fr-ca": "lower", "FR-CA": "upper"}, "Fr-Ca", "upper", true},
		{"case-insensitive en", map[string]string{"EN": "Name"}, "fr", "Name", true},
		{"empty label is present", map[string]string{"fr": "", "en": "Name"}, "fr", "", true},
		{"no en-US fallback for en", map[string]string{"en-US": "Name"}, "fr", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, found := localizedLabel(tc.labels, tc.culture)
			if got != tc.want || found != tc.found {
				t.Errorf("localizedLabel(%v, %q) = %q, %t; want %q, %t", tc.labels, tc.culture, got, found, tc.want, tc.found)
			}
		})
	}
}

func TestLocalizedLabel_chain(t *testing.T) {
	t.Parallel()

	tests := map[string][]string{
		"fr-CA":                          {"fr-CA", "fr", "en"},
		"zh-Hant-TW":                     {"zh-Hant-TW", "zh-Hant", "zh", "en"},
		"zh-Hant-CN-x-private1-private2": {"zh-Hant-CN-x-private1-private2", "zh-Hant-CN-x-private1", "zh-Hant-CN", "zh-Hant", "zh", "en"},
		"en":                             {"en"},
		"en-US":                          {"en-US", "en"},
		"EN_gb":                          {"EN_gb", "EN"},
		"":                               {"en"},
		" fr ":                           {"fr", "en"},
	}
	for culture, want := range tests {
		if got := cultureLookupChain(culture); !slices.Equal(got, want) {
			t.Errorf("cultureLookupChain(%q) = %q, want %q", culture, got, want)
		}
	}
}

func TestLocalizedLabelFunction_fallbackChain(t *testing.T) {
	t.Parallel()
	const call = "provider::mediaplatform::localized_label"
	testFunctions(t, functionOutputsStep(`
locals {
  labels = {
    "en"      = "Duration"
    "fr"      = "Durée"
    "fr-CA"   = "Durée (Canada)"
    "zh-Hant" = "時長"
    "zh"      = "时长"
  }
}
`,
		functionOutput{"full_culture", call + `(local.labels, "fr-CA", "durationTC")`, knownvalue.StringExact("Durée (Canada)")},
		functionOutput{"language", call + `({ for k, v in local.labels : k => v if k != "fr-CA" }, "fr-CA", "durationTC")`, knownvalue.StringExact("Durée")},
		functionOutput{"english", call + `({ en = "Duration", de = "Dauer" }, "fr-CA", "durationTC")`, knownvalue.StringExact("Duration")},
		functionOutput{"fallback", call + `({ de = "Dauer" }, "fr-CA", "durationTC")`, knownvalue.StringExact("durationTC")},
		functionOutput{"three_subtags", call + `(local.labels, "zh-Hant-TW", "durationTC")`, knownvalue.StringExact("時長")},
		functionOutput{"case_and_underscore", call + `(local.labels, "FR_ca", "durationTC")`, knownvalue.StringExact("Durée (Canada)")},
		functionOutput{"empty_label", call + `({ fr = "", en = "Duration" }, "fr", "durationTC")`, knownvalue.StringExact("")},
		functionOutput{"null_label", call + `({ fr = null, en = "Duration" }, "fr", "durationTC")`, knownvalue.StringExact("Duration")},
	))
}

func TestLocalizedLabelFunction_null(t *testing.T) {
	t.Parallel()
	const call = "provider::mediaplatform::localized_label"
	testFunctions(t,
		functionOutputsStep("",
			functionOutput{"null_labels", call + `(null, "fr-CA", "durationTC")`, knownvalue.StringExact("durationTC")},
			functionOutput{"empty_labels", call + `({}, "fr-CA", "durationTC")`, knownvalue.StringExact("durationTC")},
			functionOutput{"null_culture", call + `({ fr = "Durée", en = "Duration" }, null, "durationTC")`, knownvalue.StringExact("Duration")},
			functionOutput{"null_culture_no_en", call + `({ fr = "Durée" }, null, "durationTC")`, knownvalue.StringExact("durationTC")},
		),
		resource.TestStep{
			Config: `
output "null_fallback" {
  value = provider::mediaplatform::localized_label({ en = "Duration" }, "en", null)
}
`,
			ExpectError: regexp.MustCompile(`(?s)Invalid value for "fallback" parameter.*must not be null`),
		},
	)
}

func TestLocalizedLabelFunction_unknown(t *testing.T) {
	t.Parallel()

	testFunctions(t, resource.TestStep{
		Config: `
resource "terraform_data" "culture" {
  input = "fr-CA"
}
resource "terraform_data" "labels" {
  input = { fr = "Durée", en = "Duration" }
}

output "unknown_culture" {
  value = provider::mediaplatform::localized_label({ fr = "Durée", en = "Duration" }, terraform_data.culture.output, "durationTC")
}
output "unknown_labels" {
  value = provider::mediaplatform::localized_label(terraform_data.labels.output, "fr-CA", "durationTC")
}
output "unknown_label_element" {
  value = provider::mediaplatform::localized_label({ fr = terraform_data.culture.output, en = "Duration" }, "en", "durationTC")
}
output "unknown_fallback" {
  value = provider::mediaplatform::localized_label({}, "fr-CA", terraform_data.culture.output)
}
`,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownOutputValue("unknown_culture"),
				plancheck.ExpectUnknownOutputValue("unknown_labels"),
				plancheck.ExpectUnknownOutputValue("unknown_label_element"),
				plancheck.ExpectUnknownOutputValue("unknown_fallback"),
			},
		},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownOutputValue("unknown_culture", knownvalue.StringExact("Durée")),
			statecheck.ExpectKnownOutputValue("unknown_labels", knownvalue.StringExact("Durée")),
			statecheck.ExpectKnownOutputValue("unknown_label_element", knownvalue.StringExact("Duration")),
			statecheck.ExpectKnownOutputValue("unknown_fallback", knownvalue.StringExact("fr-CA")),
		},
	})
}
