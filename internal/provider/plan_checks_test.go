package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestPlanChecks_missingSettingAtPlan: a score planned for creation without the
// platform password, and settings without the administrator password, fail at plan
// time naming the setting and its variable, before any request.
func TestPlanChecks_missingSettingAtPlan(t *testing.T) {
	// Not parallel: it clears environment variables.
	t.Setenv(client.EnvPassword, "")
	t.Setenv(client.EnvAdminPassword, "")
	emu := newTestEmulator(t)
	noPassword := emu.config()
	noPassword.Password = ""
	noAdminPassword := emu.config()
	noAdminPassword.AdminPassword = ""
	testRejectedBeforeRequests(t, emu, func(body string) string { return body }, []rejectedConfig{
		{providerBlock(noPassword) + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}`, accScoreURL("no-password")), []string{"Missing provider setting", `The provider setting "password" is needed here`, client.EnvPassword}},
		{providerBlock(noPassword) + `
resource "mediaplatform_score_view" "test" {
  score = "some-score"
}`, []string{"Missing provider setting", `The provider setting "password" is needed here`}},
		{providerBlock(noAdminPassword) + `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}`, []string{"Missing provider setting", `The provider setting "admin_password" is needed here`, client.EnvAdminPassword}},
	})
}

// TestPlanChecks_renewBeforeLifetime: a renew_before that is not shorter than the
// view's lifetime would replace the view on every plan: refused at plan time.
func TestPlanChecks_renewBeforeLifetime(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, blockConfig(emu, `resource "mediaplatform_score_view" "test"`), []rejectedConfig{
		{"score = \"s\"\n  renew_before = \"2h\"", []string{"renew_before", "must be shorter than the view's lifetime (2h0m0s"}},
		{"score = \"s\"\n  expires_in = 600\n  renew_before = \"15m\"", []string{"renew_before", "lifetime (10m0s"}},
	})
}

// TestPlanChecks_conflictingCredentials: basic_token beside client_id or
// client_secret (or both) in the provider block is reported when the configuration is
// validated, in one error that names what is set and the fix, in the words the same
// conflict gets from the environment.
func TestPlanChecks_conflictingCredentials(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	for _, c := range []struct {
		id, secret string
		named      string
	}{
		{"terraform", "terraform-secret", "client_id and client_secret (in the provider configuration)"},
		{"terraform", "", "client_id (in the provider configuration)"},
		{"", "terraform-secret", "client_secret (in the provider configuration)"},
	} {
		cfg := emu.config()
		cfg.BasicToken = "dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ="
		cfg.ClientID, cfg.ClientSecret = c.id, c.secret
		diags, _ := protocolRun(t, providerBlock(cfg)+`data "mediaplatform_health" "test" {}`)
		text := planDiagnosticsText(diags)
		errs := 0
		for _, d := range diags {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				errs++
			}
		}
		if errs != 1 || !errorPattern("Error: Conflicting application credentials",
			"basic_token (in the provider configuration) and "+c.named+" are both set",
			"set either basic_token, or both client_id and client_secret, and unset the other").MatchString(text) {
			t.Errorf("basic_token beside %s: want one error naming both and the fix, got %d:\n%s", c.named, errs, text)
		}
	}
	expectNoRequests(t, emu)
}

// TestProviderConfigure_conflictingCredentialsFromEnvironment: the same conflict when
// the variables supply the two forms.
func TestProviderConfigure_conflictingCredentialsFromEnvironment(t *testing.T) {
	t.Setenv(client.EnvBasicToken, "dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=")
	t.Setenv(client.EnvClientID, "terraform")
	_, resp := configureProvider(t, map[string]tftypes.Value{})
	if !resp.Diagnostics.HasError() || resp.Diagnostics.Errors()[0].Summary() != "Conflicting application credentials" {
		t.Errorf("want the conflict reported at configuration, got %v", resp.Diagnostics)
	}
}
