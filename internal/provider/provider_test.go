package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	fwschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// testRenderDelay keeps scores in pending and rendering long enough to be seen, and
// short enough for fast tests.
const testRenderDelay = 20 * time.Millisecond

// envAccExternal, set to 1, points the acceptance tests at the platform named by the
// provider's MEDIAPLATFORM_* environment variables instead of an in-process emulator
// per test.
const envAccExternal = "MEDIAPLATFORM_ACC_EXTERNAL"

// accPrefix starts the name of every object the acceptance tests create (score
// aliases, score file names, domain names), so that the sweeper can find what an
// interrupted run left behind.
const accPrefix = "tf-acc-"

// accName returns a fresh object name: accPrefix and a random suffix.
func accName() string {
	return accPrefix + acctest.RandStringFromCharSet(10, acctest.CharSetAlphaNum)
}

// accScoreURL is the address of a score file named name (which starts with accPrefix,
// so that the sweeper also recognises scores without an alias).
func accScoreURL(name string) string {
	return "https://cdn.example/scores/" + name + ".sib"
}

// accBrokenScoreURL is the address of a score file the platform cannot render: its
// host does not exist (the emulator fails every host under .invalid).
func accBrokenScoreURL(name string) string {
	return "https://scores.invalid/" + name + ".sib"
}

// accDomain is a fresh external authentication domain name.
func accDomain() string {
	return accName() + ".example"
}

// externalPlatform holds the addresses and accounts of the external platform, read
// from the environment before any test changes it; nil unless MEDIAPLATFORM_ACC_EXTERNAL
// is set.
var externalPlatform = loadExternalPlatform(os.Getenv)

func loadExternalPlatform(getenv func(string) string) *client.Config {
	if on, _ := strconv.ParseBool(getenv(envAccExternal)); !on {
		return nil
	}
	var cfg client.Config
	cfg.ApplyEnv(getenv)
	return &cfg
}

// missingExternalSettings names the environment variables external mode needs and
// cfg lacks.
func missingExternalSettings(cfg client.Config) []string {
	var missing []string
	for _, s := range []struct{ value, env string }{
		{cfg.AdminURL, client.EnvAdminURL}, {cfg.AdminUsername, client.EnvAdminUsername},
		{cfg.AdminPassword, client.EnvAdminPassword}, {cfg.PlatformURL, client.EnvPlatformURL},
		{cfg.Username, client.EnvUsername}, {cfg.Password, client.EnvPassword},
	} {
		if s.value == "" {
			missing = append(missing, s.env)
		}
	}
	if cfg.BasicToken == "" && (cfg.ClientID == "" || cfg.ClientSecret == "") {
		missing = append(missing, client.EnvClientID+" and "+client.EnvClientSecret+" (or "+client.EnvBasicToken+")")
	}
	return missing
}

// testEmulator is the platform one acceptance test runs against: by default an
// in-process emulator of its own; with MEDIAPLATFORM_ACC_EXTERNAL=1 the external
// platform of the MEDIAPLATFORM_* variables, shared by every test of the run.
//
// Addresses, the default accounts' provider configuration and an API client work on
// both. What only an emulator offers (request and login counts, faults, expiry,
// scripted commands, options, its other accounts) is reached through control, which
// skips the test on an external platform, or optionalControl, for a check that is
// extra to the test's point and is left out there.
type testEmulator struct {
	// URL is scheme://host of the in-process emulator's listener; empty on an
	// external platform.
	URL string

	emu *emulator.Emulator // nil on an external platform; tests go through control, never here
	t   *testing.T         // the test it serves
	cfg client.Config      // addresses and default accounts
}

// newTestEmulator starts an emulator on a local listener, closed when the test ends;
// in external mode it returns the external platform instead.
func newTestEmulator(t *testing.T) *testEmulator {
	t.Helper()
	if externalPlatform != nil {
		if os.Getenv(resource.EnvTfAcc) == "" {
			t.Skip("the external platform is for acceptance tests: set TF_ACC=1")
		}
		if missing := missingExternalSettings(*externalPlatform); len(missing) > 0 {
			t.Fatalf("%s=1 needs the platform's settings; missing: %s", envAccExternal, strings.Join(missing, ", "))
		}
		return &testEmulator{t: t, cfg: *externalPlatform}
	}
	return startTestEmulator(t, emulator.Options{RenderDelay: testRenderDelay})
}

// newTestEmulatorWith starts an emulator with options of its own, for a test that
// needs them (what names them: "a 6 s token lifetime"); on an external platform it
// skips the test.
func newTestEmulatorWith(t *testing.T, what string, opts emulator.Options) *testEmulator {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: " + what)
	}
	return startTestEmulator(t, opts)
}

func startTestEmulator(t *testing.T, opts emulator.Options) *testEmulator {
	t.Helper()
	emu := emulator.New(opts)
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	// Registered before anything of the test's own, so it runs after every other
	// cleanup: by then the providers' and the test's clients have all closed, and
	// like the provider binary they must have left no session or token behind.
	t.Cleanup(func() {
		if s := emu.Stats(); s.LiveSessions != 0 || s.LiveTokens != 0 {
			t.Errorf("at the end of the test: %d live administrator sessions and %d live access tokens, want none",
				s.LiveSessions, s.LiveTokens)
		}
	})
	return servedTestEmulator(t, emu, srv.URL)
}

// servedTestEmulator is the target of an emulator a test serves itself at base
// (scheme://host), e.g. over TLS.
func servedTestEmulator(t *testing.T, emu *emulator.Emulator, base string) *testEmulator {
	return &testEmulator{emu: emu, URL: base, t: t, cfg: emulatorConfig(emu, base)}
}

// emulatorConfig is the client configuration of an emulator's default accounts.
func emulatorConfig(emu *emulator.Emulator, base string) client.Config {
	return client.Config{
		AdminURL: emu.AdminURL(base), AdminUsername: "admin", AdminPassword: "admin-secret",
		PlatformURL: emu.PlatformURL(base), ClientID: "terraform", ClientSecret: "terraform-secret",
		Username: "alice", Password: "alice-secret",
	}
}

// control returns the in-process emulator to a test that needs what only an emulator
// offers, named by what ("request counts", "scripted commands"). On an external
// platform it skips the test with that reason: call it before the test creates
// anything.
func (e *testEmulator) control(t *testing.T, what string) *emulator.Emulator {
	t.Helper()
	if e.emu == nil {
		t.Skip("needs the emulator's control surface: " + what)
	}
	return e.emu
}

// optionalControl returns the in-process emulator for a check that is extra to the
// test's point (that a plan-time error came before any request), or nil on an
// external platform, where the caller leaves that check out; the log says so.
func (e *testEmulator) optionalControl(t *testing.T, what string) *emulator.Emulator {
	t.Helper()
	if e.emu == nil {
		t.Logf("external platform: not checked: %s", what)
	}
	return e.emu
}

// shared reports whether other tests use the platform at the same time (external
// mode): a check over every score on it cannot hold there.
func (e *testEmulator) shared() bool { return e.emu == nil }

// config is the client configuration of the default accounts.
func (e *testEmulator) config() client.Config { return e.cfg }

// adminURL, platformURL and publishingURL are the platform's three base addresses.
func (e *testEmulator) adminURL() string    { return e.config().AdminURL }
func (e *testEmulator) platformURL() string { return e.config().PlatformURL }
func (e *testEmulator) publishingURL() string {
	if e.emu != nil {
		return e.emu.PublishingURL(e.URL)
	}
	// Derived from admin_url unless set, as the provider derives it.
	c, err := client.New(e.config())
	if err != nil {
		return ""
	}
	defer func() { _ = c.Close(context.Background()) }()
	u, _ := c.PublishingURL()
	return u
}

// viewerURLPattern matches the viewer_url of a view on this platform.
func (e *testEmulator) viewerURLPattern() *regexp.Regexp {
	if e.emu != nil {
		return regexp.MustCompile(`^` + regexp.QuoteMeta(e.URL) + `/viewer/\S+$`)
	}
	return regexp.MustCompile(`^https?://\S+/viewer/\S+$`)
}

// providerConfig is a provider block for the default accounts. On an external
// platform the values come from the MEDIAPLATFORM_* variables, written out, so that
// the configuration is the same in both modes and also reaches a provider whose
// environment lacks them (the real binary's).
func (e *testEmulator) providerConfig() string {
	return providerBlock(e.config())
}

// providerConfigWith is providerConfig with the given admin and platform passwords:
// the emulator's accounts only, since wrong passwords could lock a real account out.
func providerConfigWith(e *testEmulator, adminPassword, password string) string {
	e.control(e.t, "its accounts, for refused logins")
	cfg := e.config()
	cfg.AdminPassword, cfg.Password = adminPassword, password
	return providerBlock(cfg)
}

// providerBlock is a provider block with every setting of cfg that is set.
func providerBlock(cfg client.Config) string {
	var b strings.Builder
	b.WriteString("\nprovider \"mediaplatform\" {\n")
	for _, s := range []struct{ name, value string }{
		{"admin_url", cfg.AdminURL}, {"admin_username", cfg.AdminUsername}, {"admin_password", cfg.AdminPassword},
		{"platform_url", cfg.PlatformURL}, {"client_id", cfg.ClientID}, {"client_secret", cfg.ClientSecret},
		{"basic_token", cfg.BasicToken}, {"username", cfg.Username}, {"password", cfg.Password},
		{"publishing_url", cfg.PublishingURL}, {"publishing_service", cfg.PublishingService},
		{"registry_url", cfg.RegistryURL},
	} {
		if s.value != "" {
			fmt.Fprintf(&b, "  %s = %q\n", s.name, s.value)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// newClient returns an API client for the default accounts; the caller closes it.
func (e *testEmulator) newClient() (*client.Client, error) {
	return client.New(e.config())
}

// client returns an API client for out-of-band changes (drift), closed when the test ends.
func (e *testEmulator) client(t *testing.T) *client.Client {
	t.Helper()
	c, err := e.newClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// deleteAtCleanup returns a function that records a score the test published out of
// band (Terraform destroys its own); the recorded scores are deleted when the test
// ends. The function is safe for concurrent use.
func (e *testEmulator) deleteAtCleanup(t *testing.T) (record func(id string)) {
	t.Helper()
	var mu sync.Mutex
	var ids []string
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if len(ids) == 0 {
			return
		}
		c, err := e.newClient()
		if err != nil {
			t.Error(err)
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		next := make(chan string)
		for range 8 {
			wg.Go(func() {
				for id := range next {
					if err := c.DeleteScore(ctx, id, true); err != nil && !client.IsNotFound(err) {
						t.Errorf("deleting score %s at the end of the test: %v", id, err)
					}
				}
			})
		}
		for _, id := range ids {
			next <- id
		}
		close(next)
		wg.Wait()
	})
	return func(id string) {
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
	}
}

// settingsMu serialises the tests that write the external authentication settings,
// a singleton, on a shared platform.
var settingsMu sync.Mutex

// takeSettings is called by a test that writes the external authentication settings,
// before it does: on a shared platform it waits until no other test holds them, and
// when the test ends it puts back the settings it found.
func (e *testEmulator) takeSettings(t *testing.T) {
	t.Helper()
	if e.shared() {
		settingsMu.Lock()
		t.Cleanup(settingsMu.Unlock) // registered first, so released last
	}
	// Each client logs out at once, so that no session outlives a step.
	c, err := e.newClient()
	if err != nil {
		t.Fatal(err)
	}
	found, err := c.GetExternalAuthentication(context.Background())
	_ = c.Close(context.Background())
	if err != nil {
		t.Fatalf("reading the external authentication settings, to restore them at the end: %v", err)
	}
	t.Cleanup(func() {
		c, err := e.newClient()
		if err != nil {
			t.Error(err)
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		ctx := context.Background()
		restore := *found
		if restore.DomainName == "" {
			// Never configured: the API cannot store an empty domain, so the nearest
			// state is external authentication switched off.
			current, err := c.GetExternalAuthentication(ctx)
			if err != nil {
				t.Errorf("restoring the external authentication settings: %v", err)
				return
			}
			if current.DomainName == "" {
				return // still never configured
			}
			restore = client.ExternalAuthentication{DomainName: current.DomainName}
		}
		if _, err := c.PutExternalAuthentication(ctx, restore); err != nil {
			t.Errorf("restoring the external authentication settings: %v", err)
		}
	})
}

// testProviderFactories serves a fresh provider instance to every Terraform command,
// as the real binary does (one process per command), and closes the clients of those
// instances when the test ends, as the binary does when Terraform shuts it down: every
// test logs out its sessions and removes its tokens, on an emulator or a real platform.
func testProviderFactories(t *testing.T) map[string]func() (tfprotov6.ProviderServer, error) {
	t.Helper()
	var tp trackedProviders
	t.Cleanup(func() { tp.closeClients(t) })
	return tp.factories()
}

// trackedProviders serves a fresh provider instance to every Terraform command and
// remembers the instances, so that the test can close their clients at the end as the
// provider binary does when Terraform ends it. (In-process providers are never shut
// down that way, and CloseAll would also close the clients of tests running in
// parallel.)
type trackedProviders struct {
	mu        sync.Mutex
	providers []*mediaplatformProvider
}

func (tp *trackedProviders) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return tp.factoriesOf(func(p *mediaplatformProvider) provider.Provider { return p })
}

// factoriesOf serves what serve makes of each fresh provider instance, e.g. a variant
// of it that an earlier release of the provider stands in for.
func (tp *trackedProviders) factoriesOf(serve func(*mediaplatformProvider) provider.Provider) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mediaplatform": func() (tfprotov6.ProviderServer, error) {
			p, ok := New("test")().(*mediaplatformProvider)
			if !ok {
				return nil, errors.New("New does not return a *mediaplatformProvider")
			}
			tp.mu.Lock()
			tp.providers = append(tp.providers, p)
			tp.mu.Unlock()
			server, err := providerserver.NewProtocol6WithError(serve(p))()
			if err != nil {
				return nil, err
			}
			return withNullArguments(server)
		},
	}
}

// closeClients logs out and removes the tokens of every client the providers made.
func (tp *trackedProviders) closeClients(t *testing.T) {
	t.Helper()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, p := range tp.providers {
		p.mu.Lock()
		c := p.client
		p.mu.Unlock()
		if c == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.Close(ctx)
		cancel()
		if err != nil {
			t.Errorf("closing a provider's client: %v", err)
		}
	}
}

// expectNoRequests fails the test if the emulator served any platform request. On
// an external platform it checks nothing: other tests use it at the same time.
func expectNoRequests(t *testing.T, e *testEmulator) {
	t.Helper()
	emu := e.optionalControl(t, "that no request reached the platform")
	if emu == nil {
		return
	}
	if stats := emu.Stats(); stats.TotalRequests() != 0 {
		t.Errorf("the emulator served %d requests, want none: %v", stats.TotalRequests(), stats.Requests)
	}
}

// rejectedConfig is a configuration body a validation test applies and the phrases of
// the error it must fail with, in order (errorPattern).
type rejectedConfig struct {
	body string
	err  []string
}

// testRejectedBeforeRequests runs a step per case, its configuration config(body) and
// PlanOnly planOnly, that must fail with the case's error, in tc (the version checks;
// testProviderFactories unless tc names factories); then it checks that no request
// reached the platform: validation belongs to plan time.
func testRejectedBeforeRequests(t *testing.T, emu *testEmulator, tc resource.TestCase, planOnly bool,
	config func(body string) string, cases []rejectedConfig,
) {
	t.Helper()
	if tc.ProtoV6ProviderFactories == nil {
		tc.ProtoV6ProviderFactories = testProviderFactories(t)
	}
	for _, c := range cases {
		tc.Steps = append(tc.Steps, resource.TestStep{
			Config:      config(c.body),
			PlanOnly:    planOnly,
			ExpectError: errorPattern(c.err...),
		})
	}
	resource.Test(t, tc)
	expectNoRequests(t, emu)
}

// blockConfig is the configuration of one block, header (`data "mediaplatform_scores"
// "test"`) with body as its arguments, after the provider block of the default accounts.
func blockConfig(emu *testEmulator, header string) func(body string) string {
	return func(body string) string {
		return emu.providerConfig() + header + " {\n  " + body + "\n}\n"
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
	config := func(settings string) string {
		return "provider \"mediaplatform\" {\n  " + settings + "\n}\n" + resourceBlock
	}
	testRejectedBeforeRequests(t, emu, resource.TestCase{}, true, config, []rejectedConfig{
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
	testWrongCredentials(t, "wrong-password", "alice-secret", fmt.Sprintf(`
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
	testWrongCredentials(t, "admin-secret", "wrong-password", fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL(accName())), errorPattern("platform login", "was refused", "invalid_grant"),
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

// errorPattern matches the given phrases in order, as Terraform prints them: it wraps
// diagnostics at word boundaries, so every space matches any run of white space.
func errorPattern(phrases ...string) *regexp.Regexp {
	quoted := make([]string, len(phrases))
	for i, p := range phrases {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(strings.Join(quoted, `[\s\S]*`))
}
