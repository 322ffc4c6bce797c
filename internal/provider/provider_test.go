package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// configureProvider runs Configure with the given attribute values (the others null)
// and returns the client configuration the provider built.
func configureProvider(t *testing.T, values map[string]tftypes.Value) (client.Config, *provider.ConfigureResponse) {
	t.Helper()
	ctx := context.Background()
	p := &mediaplatformProvider{version: "test"}
	schemaResp := &provider.SchemaResponse{}
	p.Schema(ctx, provider.SchemaRequest{}, schemaResp)
	objType, ok := schemaResp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the provider schema is not an object type")
	}
	attrs := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		attrs[name] = tftypes.NewValue(typ, nil)
		if v, ok := values[name]; ok {
			attrs[name] = v
		}
	}
	req := provider.ConfigureRequest{Config: tfsdk.Config{Schema: schemaResp.Schema, Raw: tftypes.NewValue(objType, attrs)}}
	resp := &provider.ConfigureResponse{}
	p.Configure(ctx, req, resp)
	return p.config, resp
}

func TestProviderConfigure(t *testing.T) {
	// Not parallel: it sets environment variables.
	t.Setenv(client.EnvAdminURL, "https://env.example/api/v1")
	t.Setenv(client.EnvAdminUsername, "env-admin")
	t.Setenv(client.EnvAdminPassword, "env-password")
	t.Setenv(client.EnvPlatformURL, "https://env.example")
	t.Setenv(client.EnvUsername, "")

	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	cfg, resp := configureProvider(t, map[string]tftypes.Value{
		"admin_url":       str("https://config.example/api/v1"),                   // config wins
		"admin_password":  tftypes.NewValue(tftypes.String, tftypes.UnknownValue), // unknown: no env fallback
		"username":        str("alice"),
		"request_timeout": str("2m"),
		"max_retries":     tftypes.NewValue(tftypes.Number, 0),
	})
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure: %v", resp.Diagnostics)
	}
	if _, ok := resp.ResourceData.(*client.Client); !ok || resp.ResourceData != resp.DataSourceData || resp.ResourceData != resp.EphemeralResourceData {
		t.Errorf("Configure must hand the same client to resources, data sources and ephemeral resources")
	}
	want := map[string][2]string{
		"admin_url":      {cfg.AdminURL, "https://config.example/api/v1"},
		"admin_username": {cfg.AdminUsername, "env-admin"},
		"admin_password": {cfg.AdminPassword, ""},
		"platform_url":   {cfg.PlatformURL, "https://env.example"},
		"username":       {cfg.Username, "alice"},
	}
	for name, got := range want {
		if got[0] != got[1] {
			t.Errorf("%s = %q, want %q", name, got[0], got[1])
		}
	}
	if cfg.RequestTimeout != 2*time.Minute || cfg.MaxRetries != client.NoRetries {
		t.Errorf("request_timeout %s, max_retries %d; want 2m0s and NoRetries", cfg.RequestTimeout, cfg.MaxRetries)
	}

	cfg, resp = configureProvider(t, nil)
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure: %v", resp.Diagnostics)
	}
	if cfg.RequestTimeout != 30*time.Second || cfg.MaxRetries != defaultMaxRetries || cfg.AdminPassword != "env-password" {
		t.Errorf("defaults: request_timeout %s, max_retries %d, admin_password from env %q",
			cfg.RequestTimeout, cfg.MaxRetries, cfg.AdminPassword)
	}

	// The two forms of the application credential conflict wherever each comes from:
	// one form in the configuration beside the other in the environment is reported,
	// naming where each came from, as between two configuration values.
	t.Setenv(client.EnvClientID, "env-client")
	t.Setenv(client.EnvClientSecret, "env-secret")
	_, resp = configureProvider(t, map[string]tftypes.Value{"basic_token": str("Y2ZnOmJhc2lj")})
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(),
		"basic_token (in the provider configuration) and client_id (from the environment variable MEDIAPLATFORM_CLIENT_ID) are both set") {
		t.Errorf("basic_token in config beside client_id in the environment: %v", resp.Diagnostics)
	}
	t.Setenv(client.EnvClientID, "")
	t.Setenv(client.EnvClientSecret, "")
	t.Setenv(client.EnvBasicToken, "ZW52OmJhc2lj")
	_, resp = configureProvider(t, map[string]tftypes.Value{"client_id": str("cfg-client"), "client_secret": str("cfg-secret")})
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(),
		"basic_token (from the environment variable MEDIAPLATFORM_BASIC_TOKEN) and client_id (in the provider configuration) are both set") {
		t.Errorf("client_id in config beside basic_token in the environment: %v", resp.Diagnostics)
	}
	t.Setenv(client.EnvBasicToken, "")

	_, resp = configureProvider(t, map[string]tftypes.Value{"ca_cert_pem": str("not a certificate"), "basic_token": str("Y2ZnOmJhc2lj")})
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "ca_cert_pem") {
		t.Errorf("an invalid ca_cert_pem must fail Configure naming it, got %v", resp.Diagnostics)
	}
}

// TestAccProvider_configureMakesNoRequest plans the creation of every resource: neither
// configuring the provider nor planning new objects contacts the platform.
func TestAccProvider_configureMakesNoRequest(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	name := accName()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
resource "mediaplatform_score" "test" {
  score_url = %q
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.test.id
}
`, accDomain(), accScoreURL(name)),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	expectNoRequests(t, emu)
}

// TestAccProvider_unknownConfiguration configures the provider with a password only
// known after apply: the plan succeeds without it, and the apply uses it.
func TestAccProvider_unknownConfiguration(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	domain := accDomain()
	cfg := emu.config()
	config := fmt.Sprintf(`
resource "terraform_data" "password" {
  input = sensitive(%q)
}
provider "mediaplatform" {
  admin_url      = %q
  admin_username = %q
  admin_password = terraform_data.password.output
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
`, cfg.AdminPassword, cfg.AdminURL, cfg.AdminUsername, domain)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("mediaplatform_external_authentication.test", plancheck.ResourceActionCreate),
				},
			},
			Check: func(*terraform.State) error {
				return expectSettings(t, emu, client.ExternalAuthentication{DomainName: domain, Enabled: true})
			},
		}},
	})
}

// TestProvider_validation checks the provider's own arguments at plan time, before
// any request.
func TestProvider_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resourceBlock := `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`
	config := func(settings string) string {
		return "provider \"mediaplatform\" {\n  " + settings + "\n}\n" + resourceBlock
	}
	testRejectedBeforeRequests(t, emu, config, []rejectedConfig{
		{`admin_url = "ftp://host/api/v1"`, []string{"admin_url", "absolute http or https URL", `scheme "ftp"`}},
		{`platform_url = "host-without-scheme"`, []string{"platform_url", "absolute http or https URL"}},
		{`publishing_url = "https://"`, []string{"publishing_url", "no host"}},
		{`registry_url = "/relative"`, []string{"registry_url", "absolute http or https URL"}},
		{`publishing_service = "bad/name"`, []string{"publishing_service", "service name"}},
		{`request_timeout = "0s"`, []string{"request_timeout", "positive duration", "is not positive"}},
		{`request_timeout = "thirty"`, []string{"request_timeout", "does not parse"}},
		{`max_retries = 11`, []string{"max_retries", "between 0 and 10, got: 11"}},
		{`max_retries = -1`, []string{"max_retries", "between 0 and 10, got: -1"}},
		{"basic_token = \"dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=\"\n  client_id = \"terraform\"",
			[]string{"basic_token (in the provider configuration) and client_id (in the provider configuration) are both set"}},
		{"basic_token = \"dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=\"\n  client_secret = \"terraform-secret\"",
			[]string{"basic_token (in the provider configuration) and client_secret (in the provider configuration) are both set"}},
	})
}

// TestAccProvider_missingSetting reports a setting an object needs, naming the
// attribute and its environment variable, and only for that object.
func TestAccProvider_missingSetting(t *testing.T) {
	// Not parallel: it clears environment variables.
	for _, env := range []string{client.EnvAdminURL, client.EnvAdminUsername, client.EnvAdminPassword} {
		t.Setenv(env, "")
	}
	emu := newTestEmulator(t)
	// The platform settings only: publishing_url cannot be derived without admin_url.
	cfg := emu.config()
	cfg.PublishingURL = emu.publishingURL()
	cfg.AdminURL, cfg.AdminUsername, cfg.AdminPassword = "", "", ""
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			// The platform settings are complete, the administrator settings are not:
			// the plan fails on the settings resource, before anything is created.
			Config: providerBlock(cfg) + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  wait_for_rendering = false
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
`, accScoreURL(accName()), accDomain()),
			ExpectError: errorPattern("Missing provider setting", `"admin_url"`, "MEDIAPLATFORM_ADMIN_URL"),
		}},
	})
	if ctl := emu.optionalControl(t, "that no administrator login was attempted"); ctl != nil {
		if n := ctl.Stats().Requests["POST /api/v1/login"]; n != 0 {
			t.Errorf("admin logins attempted: %d, want 0", n)
		}
	}
}

// TestAccProvider_wrongAdminCredentials fails with one error naming the administrator
// login, after at most two login attempts.
func TestAccProvider_wrongAdminCredentials(t *testing.T) {
	t.Parallel()
	testWrongCredentials(t, "wrong-password", emulatortest.Password, fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
`, accDomain()), errorPattern("administrator API login", "was refused", "INVALID_CREDENTIALS"),
		"POST /api/v1/login", "admin login attempts")
}

// TestAccProvider_wrongPlatformCredentials fails with one error naming the platform
// login, after at most two password grants.
func TestAccProvider_wrongPlatformCredentials(t *testing.T) {
	t.Parallel()
	testWrongCredentials(t, emulatortest.AdminPassword, "wrong-password", fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL(accName())), errorPattern("The platform refused the user's credentials (OAuth error invalid_grant)", "the login failed, so nothing was published"),
		"POST /auth/oauth2/ropc/default", "password grants attempted")
}

// testWrongCredentials applies resources with the given admin and platform passwords,
// expects wantErr, and then that the login route was requested once or twice (what
// names those requests).
func testWrongCredentials(t *testing.T, adminPassword, password, resources string, wantErr *regexp.Regexp, route, what string) {
	t.Helper()
	target := newTestEmulator(t)
	emu := target.control(t, "login attempt counts, and an account a wrong password cannot lock")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config:      providerConfigWith(target, adminPassword, password) + resources,
			ExpectError: wantErr,
		}},
	})
	if stats := emu.Stats(); stats.Requests[route] < 1 || stats.Requests[route] > 2 {
		t.Errorf("%s: %d, want 1 or 2 (%v)", what, stats.Requests[route], stats.Requests)
	}
}

// TestAccProvider_requestCounts records, through the real provider binary under the
// real CLI, the requests each command costs for each resource, and that no credential
// is left live after it.
func TestAccProvider_requestCounts(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	name := accName()
	for _, c := range []struct{ name, config string }{
		{"mediaplatform_external_authentication", fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 389 }]
}
`, accDomain())},
		{"mediaplatform_score", fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = %q
}
`, accScoreURL(name), name)},
		{"mediaplatform_score_view", `
resource "mediaplatform_score_view" "test" {
  score = %q
}
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			emu := newTestEmulator(t)
			ctl := emu.control(t, "request counts")
			config := c.config
			if c.name == "mediaplatform_score_view" {
				config = fmt.Sprintf(config, publishTestScore(t, emu).Alias)
			}
			w := newWorkspace(t, emu, config)
			for _, step := range []struct {
				what string
				args []string
			}{
				{"create (terraform apply)", []string{"apply", "-auto-approve"}},
				{"refresh (terraform plan)", []string{"plan"}},
				{"destroy (terraform destroy)", []string{"destroy", "-auto-approve"}},
			} {
				before := ctl.Stats()
				w.run(step.args...)
				after := ctl.Stats()
				t.Logf("%s %s: %d requests %s", c.name, step.what,
					after.TotalRequests()-before.TotalRequests(), requestDelta(before, after))
				if after.LiveSessions != 0 || after.LiveTokens != 0 {
					t.Errorf("after %s: %d live sessions, %d live tokens; want 0", step.what, after.LiveSessions, after.LiveTokens)
				}
			}
		})
	}
}

// TestProviderConfigure_basicTokenFromEnvironment: MEDIAPLATFORM_BASIC_TOKEN is judged
// as basic_token is at plan (client.CheckBasicToken): pasted unencoded it is refused
// naming the variable, with `echo`'s line break encoded it is warned of; neither
// message quotes it. Before, both reached the platform and came back as invalid_client.
func TestProviderConfigure_basicTokenFromEnvironment(t *testing.T) {
	// Not parallel: it sets environment variables.
	for _, c := range []struct {
		token    string
		severity diag.Severity
		want     string
	}{
		{"terraform:terraform-secret", diag.SeverityError, "holds a ':'"},
		{base64.StdEncoding.EncodeToString([]byte("terraform:terraform-secret\n")), diag.SeverityWarning,
			"its secret ends with a line break"},
	} {
		t.Setenv(client.EnvBasicToken, c.token)
		t.Setenv(client.EnvClientID, "")
		t.Setenv(client.EnvClientSecret, "")
		_, resp := configureProvider(t, map[string]tftypes.Value{})
		var found bool
		for _, d := range resp.Diagnostics {
			text := d.Summary() + ": " + d.Detail()
			if strings.Contains(text, "terraform-secret") || strings.Contains(text, c.token) {
				t.Errorf("a diagnostic quotes the credential: %s", text)
			}
			found = found || d.Severity() == c.severity && strings.Contains(text, client.EnvBasicToken) &&
				strings.Contains(text, c.want)
		}
		if !found {
			t.Errorf("%s from the environment: want a diagnostic naming %s and %q, got %v", c.want, client.EnvBasicToken,
				c.want, resp.Diagnostics)
		}
	}
}
