package provider

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	fwschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// testRenderDelay keeps scores in pending and rendering long enough to be seen, and
// short enough for fast tests.
const testRenderDelay = 20 * time.Millisecond

// testEmulator is one in-process emulator serving one test.
type testEmulator struct {
	*emulator.Emulator
	URL string // scheme://host of the listener
}

// newTestEmulator starts an emulator on a local listener, closed when the test ends.
func newTestEmulator(t *testing.T) *testEmulator {
	t.Helper()
	emu := emulator.New(emulator.Options{RenderDelay: testRenderDelay})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	return &testEmulator{Emulator: emu, URL: srv.URL}
}

// providerConfig is a provider block for the emulator with the default accounts.
func (e *testEmulator) providerConfig() string {
	return providerConfigWith(e, "admin-secret", "alice-secret")
}

// providerConfigWith is providerConfig with the given admin and platform passwords.
func providerConfigWith(e *testEmulator, adminPassword, password string) string {
	return fmt.Sprintf(`
provider "mediaplatform" {
  admin_url      = %q
  admin_username = "admin"
  admin_password = %q
  platform_url   = %q
  client_id      = "terraform"
  client_secret  = "terraform-secret"
  username       = "alice"
  password       = %q
}
`, e.AdminURL(e.URL), adminPassword, e.PlatformURL(e.URL), password)
}

// client returns an API client for out-of-band changes (drift), closed when the test ends.
func (e *testEmulator) client(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{
		AdminURL: e.AdminURL(e.URL), AdminUsername: "admin", AdminPassword: "admin-secret",
		PlatformURL: e.PlatformURL(e.URL), ClientID: "terraform", ClientSecret: "terraform-secret",
		Username: "alice", Password: "alice-secret",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// requests returns the number of requests the emulator served on one route, e.g.
// "POST /api/v1/login".
func (e *testEmulator) requests(route string) int {
	return e.Stats().Requests[route]
}

// testProviderFactories serves a fresh provider instance to every Terraform command,
// as the real binary does (one process per command).
func testProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mediaplatform": func() (tfprotov6.ProviderServer, error) {
			return providerserver.NewProtocol6WithError(New("test")())()
		},
	}
}

// expectNoRequests fails the test if the emulator served any platform request.
func expectNoRequests(t *testing.T, e *testEmulator) {
	t.Helper()
	if stats := e.Stats(); stats.TotalRequests() != 0 {
		t.Errorf("the emulator served %d requests, want none: %v", stats.TotalRequests(), stats.Requests)
	}
}

func TestProviderSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := New("test")()
	resp := &provider.SchemaResponse{}
	p.Schema(ctx, provider.SchemaRequest{}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema diagnostics: %v", resp.Diagnostics)
	}
	if diags := resp.Schema.ValidateImplementation(ctx); diags.HasError() {
		t.Fatalf("schema implementation: %v", diags)
	}
	secrets := map[string]bool{"admin_password": true, "client_secret": true, "basic_token": true, "password": true}
	for name, attr := range resp.Schema.Attributes {
		if attr.GetMarkdownDescription() == "" {
			t.Errorf("attribute %s has no MarkdownDescription", name)
		}
		if attr.IsSensitive() != secrets[name] {
			t.Errorf("attribute %s: sensitive = %v, want %v", name, attr.IsSensitive(), secrets[name])
		}
	}
}

// TestResourceSchemas checks every resource schema and that every attribute, nested
// ones included, is documented for the generated docs.
func TestResourceSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, newResource := range New("test")().Resources(ctx) {
		r := newResource()
		meta := &fwresource.MetadataResponse{}
		r.Metadata(ctx, fwresource.MetadataRequest{ProviderTypeName: "mediaplatform"}, meta)
		resp := &fwresource.SchemaResponse{}
		r.Schema(ctx, fwresource.SchemaRequest{}, resp)
		if resp.Diagnostics.HasError() {
			t.Fatalf("%s: schema diagnostics: %v", meta.TypeName, resp.Diagnostics)
		}
		if diags := resp.Schema.ValidateImplementation(ctx); diags.HasError() {
			t.Errorf("%s: schema implementation: %v", meta.TypeName, diags)
		}
		if resp.Schema.MarkdownDescription == "" {
			t.Errorf("%s has no MarkdownDescription", meta.TypeName)
		}
		var walk func(prefix string, attrs map[string]fwschema.Attribute)
		walk = func(prefix string, attrs map[string]fwschema.Attribute) {
			for name, attr := range attrs {
				if attr.GetMarkdownDescription() == "" {
					t.Errorf("%s: attribute %s%s has no MarkdownDescription", meta.TypeName, prefix, name)
				}
				if nested, ok := attr.(fwschema.ListNestedAttribute); ok {
					walk(prefix+name+".", nested.NestedObject.Attributes)
				}
			}
		}
		walk("", resp.Schema.Attributes)
	}
}

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

	// Config wins for the application credential as a whole: one form in the
	// configuration keeps the other form's environment variables out.
	t.Setenv(client.EnvClientID, "env-client")
	t.Setenv(client.EnvClientSecret, "env-secret")
	t.Setenv(client.EnvBasicToken, "ZW52OmJhc2lj")
	cfg, _ = configureProvider(t, map[string]tftypes.Value{"basic_token": str("Y2ZnOmJhc2lj")})
	if cfg.BasicToken != "Y2ZnOmJhc2lj" || cfg.ClientID != "" || cfg.ClientSecret != "" {
		t.Errorf("basic_token in config: basic_token %q, client_id %q, client_secret %q", cfg.BasicToken, cfg.ClientID, cfg.ClientSecret)
	}
	cfg, _ = configureProvider(t, map[string]tftypes.Value{"client_id": str("cfg-client")})
	if cfg.BasicToken != "" || cfg.ClientID != "cfg-client" || cfg.ClientSecret != "env-secret" {
		t.Errorf("client_id in config: basic_token %q, client_id %q, client_secret %q", cfg.BasicToken, cfg.ClientID, cfg.ClientSecret)
	}

	_, resp = configureProvider(t, map[string]tftypes.Value{"ca_cert_pem": str("not a certificate")})
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "ca_cert_pem") {
		t.Errorf("an invalid ca_cert_pem must fail Configure naming it, got %v", resp.Diagnostics)
	}
}

// TestAccProvider_configureMakesNoRequest plans the creation of every resource: neither
// configuring the provider nor planning new objects contacts the platform.
func TestAccProvider_configureMakesNoRequest(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/a.sib"
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.test.id
}
`,
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
	config := fmt.Sprintf(`
resource "terraform_data" "password" {
  input = "admin-secret"
}
provider "mediaplatform" {
  admin_url      = %q
  admin_username = "admin"
  admin_password = terraform_data.password.output
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`, emu.AdminURL(emu.URL))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("mediaplatform_external_authentication.test", plancheck.ResourceActionCreate),
				},
			},
			Check: func(*terraform.State) error {
				return expectSettings(t, emu, client.ExternalAuthentication{DomainName: "CORP", Enabled: true})
			},
		}},
	})
}

// TestAccProvider_validation checks the provider's own arguments at plan time, before
// any request.
func TestAccProvider_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resourceBlock := `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`
	steps := []struct {
		settings string
		err      []string
	}{
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
			[]string{`Attribute "client_id" cannot be specified when "basic_token" is specified`}},
		{"basic_token = \"dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=\"\n  client_secret = \"terraform-secret\"",
			[]string{`Attribute "client_secret" cannot be specified when "basic_token" is specified`}},
	}
	var testSteps []resource.TestStep
	for _, s := range steps {
		testSteps = append(testSteps, resource.TestStep{
			Config:      "provider \"mediaplatform\" {\n  " + s.settings + "\n}\n" + resourceBlock,
			PlanOnly:    true,
			ExpectError: errorPattern(s.err...),
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviderFactories(), Steps: testSteps})
	expectNoRequests(t, emu)
}

// TestAccProvider_missingSetting reports a setting an object needs, naming the
// attribute and its environment variable, and only for that object.
func TestAccProvider_missingSetting(t *testing.T) {
	// Not parallel: it clears environment variables.
	for _, env := range []string{client.EnvAdminURL, client.EnvAdminUsername, client.EnvAdminPassword} {
		t.Setenv(env, "")
	}
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{{
			// The platform settings are complete, so the score is created; the
			// administrator settings are not, so only the settings resource fails.
			Config: fmt.Sprintf(`
provider "mediaplatform" {
  platform_url   = %q
  publishing_url = %q
  client_id      = "terraform"
  client_secret  = "terraform-secret"
  username       = "alice"
  password       = "alice-secret"
}
resource "mediaplatform_score" "test" {
  score_url          = "https://cdn.example/a.sib"
  wait_for_rendering = false
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`, emu.PlatformURL(emu.URL), emu.PublishingURL(emu.URL)),
			ExpectError: errorPattern("Unable to store external authentication settings", `"admin_url"`, "MEDIAPLATFORM_ADMIN_URL"),
		}},
	})
	if n := emu.requests("POST /api/v1/login"); n != 0 {
		t.Errorf("admin logins attempted: %d, want 0", n)
	}
}

// TestAccProvider_wrongAdminCredentials fails with one error naming the administrator
// login, after at most two login attempts.
func TestAccProvider_wrongAdminCredentials(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{{
			Config: providerConfigWith(emu, "wrong-password", "alice-secret") + `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`,
			ExpectError: errorPattern("administrator API login", "was refused", "INVALID_CREDENTIALS"),
		}},
	})
	if n := emu.requests("POST /api/v1/login"); n < 1 || n > 2 {
		t.Errorf("admin login attempts: %d, want 1 or 2", n)
	}
}

// TestAccProvider_wrongPlatformCredentials fails with one error naming the platform
// login, after at most two password grants.
func TestAccProvider_wrongPlatformCredentials(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{{
			Config: providerConfigWith(emu, "admin-secret", "wrong-password") + `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/a.sib"
}
`,
			ExpectError: errorPattern("platform login", "was refused", "invalid_grant"),
		}},
	})
	route := "POST /auth/oauth2/ropc/default"
	if n := emu.requests(route); n < 1 || n > 2 {
		t.Errorf("password grants attempted: %d, want 1 or 2 (%v)", n, emu.Stats().Requests)
	}
}

// errorPattern matches the given phrases in order, as Terraform prints them: it wraps
// diagnostics at word boundaries, so every space matches any run of white space.
func errorPattern(phrases ...string) *regexp.Regexp {
	quoted := make([]string, len(phrases))
	for i, p := range phrases {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(strings.Join(quoted, `[\s\S]*`))
}
