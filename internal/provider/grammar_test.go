package provider

// The plan-time validators on the contract's grammar table (internal/contracttest),
// the table the emulator's tests run too: the provider refuses at plan time exactly
// what the platform refuses.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/contracttest"
)

func TestValidatorsFollowTheContract(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		check  func(string) string
		values []contracttest.Value
	}{
		"score_url":      {checkScoreURL, contracttest.ScoreURLs},
		"score_id":       {checkScoreAlias, contracttest.Aliases},
		"address":        {checkServerAddress, contracttest.ServerAddresses},
		"license_string": {maxCharacters(maxLicenseString).check, contracttest.LicenseStrings},
	} {
		for _, v := range tc.values {
			reason := tc.check(v.Value)
			if (reason == "") != v.Valid {
				t.Errorf("%s %.40q (%s): valid %v, the contract says %v (reason %q)", name, v.Value, v.Why, reason == "", v.Valid, reason)
			}
		}
	}
}

// TestAccGrammar_refusedAtPlan: values the platform refuses fail at plan time, naming
// the attribute, before any request; 600 "é" pass.
func TestAccGrammar_refusedAtPlan(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	config := func(body string) string { return emu.providerConfig() + body }
	testRejectedBeforeRequests(t, emu, resource.TestCase{}, true, config, []rejectedConfig{
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/My Score.sib"
}`, []string{"score_url", "must be percent-encoded", "urlencode()"}},
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/partitur-é.sib"
}`, []string{"score_url", `'é' at position 30 must be percent-encoded`}},
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/a.sib"
  score_id  = "4f0c8a3e1b2c4d5e8f90123456789abc"
}`, []string{"score_id", "is a UUID"}},
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/a.sib"
  score_id  = ".."
}`, []string{"score_id", "path segment of its own"}},
		{`resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "ldap://dc1:389", port = 389 }]
}`, []string{"address", "has a scheme"}},
		{`resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1 .corp", port = 389 }]
}`, []string{"address", "contains a space"}},
	})
}

// TestAccGrammar_licenseStringCountsCharacters: a license_string of 600 "é" (1200
// bytes) is accepted at plan time and by the platform.
func TestAccGrammar_licenseStringCountsCharacters(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	license := strings.Repeat("é", 600)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  wait_for_rendering = false
}
resource "mediaplatform_score_view" "test" {
  score          = mediaplatform_score.test.id
  license_string = %q
}
`, accScoreURL("licensed"), license),
			Check: resource.TestCheckResourceAttr("mediaplatform_score_view.test", "license_string", license),
		}},
	})
}
