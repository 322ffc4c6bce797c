package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// documentedVariable matches the sentence of an argument's description that names its
// environment variable.
var documentedVariable = regexp.MustCompile("Environment variable: `(MEDIAPLATFORM_[A-Z0-9_]+)`")

// documentedEnvSettings returns every provider argument whose description documents
// an environment variable, with that variable: the list a user reads in the docs.
func documentedEnvSettings(t *testing.T) map[string]string {
	t.Helper()
	var resp provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &resp)
	settings := map[string]string{}
	for name, attribute := range resp.Schema.Attributes {
		if m := documentedVariable.FindStringSubmatch(attribute.GetMarkdownDescription()); m != nil {
			settings[name] = m[1]
		}
	}
	if len(settings) == 0 {
		t.Fatal("no argument documents an environment variable: the pattern no longer matches the descriptions")
	}
	return settings
}

// TestEnvironment_everyVariableIsDocumentedAndKnown: the variables the descriptions
// document are the ones the provider knows (client.EnvVariables), each for one
// argument: a variable documented but unknown would draw the "unknown variable"
// warning, one known but undocumented is a setting users cannot find.
func TestEnvironment_everyVariableIsDocumentedAndKnown(t *testing.T) {
	t.Parallel()
	documented := slices.Sorted(maps.Values(documentedEnvSettings(t)))
	known := slices.Sorted(slices.Values(client.EnvVariables()))
	if !slices.Equal(documented, known) {
		t.Errorf("documented variables %v\nknown variables      %v", documented, known)
	}
}

// envProbe is how TestAccEnvironment_everySettingFromItsVariable drives one setting through its
// variable: the value that works against the gateway, and a value that cannot work
// with the error that names it. Either may change other variables too (set to "":
// unset), for the settings that exclude each other.
type envProbe struct {
	good, bad map[string]string
	want      *regexp.Regexp
}

// TestAccEnvironment_everySettingFromItsVariable drives every setting that documents an
// environment variable from that variable alone, through the real binary and
// Terraform, with an empty provider block, against the emulator behind a gateway
// that demands a client certificate of a private authority and an access header, on
// a publishing service of another name than the default. The list of settings comes
// from the schema: a setting that documents a variable and has no probe here fails
// the test. With every variable set, an apply of every kind of object succeeds and
// plans empty; then each variable in turn holds a value that cannot work, and the
// plan fails naming it: so each variable is read, and checked as its argument is.
func TestAccEnvironment_everySettingFromItsVariable(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	ca := testca.New(t, "gateway CA")
	cert, key := ca.Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	_, otherKey := ca.Issue(t, "another", time.Now().Add(24*time.Hour))
	const service = "studio.publishing"
	target, serverPEM := newGatewayEmulatorWith(t, ca, emulator.Options{RenderDelay: testRenderDelay, PublishingService: service})
	emu, gatewayURL := target.emu, target.URL
	strangerPEM := testca.New(t, "another authority").PEM
	cfg := target.config()
	headers, _ := json.Marshal(map[string]string{gatewayHeader: gatewaySecret})
	wrongHeaders, _ := json.Marshal(map[string]string{gatewayHeader: "wrong"})

	one := func(setting, value string) map[string]string { return map[string]string{setting: value} }
	probes := map[string]envProbe{
		"admin_url":      {one("admin_url", cfg.AdminURL), one("admin_url", gatewayURL+"/admin/v9"), errorPattern("The address in admin_url does not lead to the platform's API")},
		"admin_username": {one("admin_username", cfg.AdminUsername), one("admin_username", "nobody"), errorPattern("The administrator API login", "was refused", `as "nobody"`)},
		"admin_password": {one("admin_password", cfg.AdminPassword), one("admin_password", "wrong"), errorPattern("The administrator API login", "was refused", `as "admin"`)},
		"platform_url":   {one("platform_url", cfg.PlatformURL), one("platform_url", gatewayURL+"/elsewhere"), errorPattern("The address in platform_url does not lead to the platform's API")},
		"client_id":      {one("client_id", cfg.ClientID), one("client_id", "stranger"), errorPattern("The platform refused the application credential (OAuth error invalid_client)")},
		"client_secret":  {one("client_secret", cfg.ClientSecret), one("client_secret", "wrong"), errorPattern("The platform refused the application credential (OAuth error invalid_client)")},
		"basic_token": {
			map[string]string{"basic_token": base64.StdEncoding.EncodeToString([]byte(cfg.ClientID + ":" + cfg.ClientSecret)), "client_id": "", "client_secret": ""},
			map[string]string{"basic_token": base64.StdEncoding.EncodeToString([]byte("stranger:wrong")), "client_id": "", "client_secret": ""},
			errorPattern("The platform refused the application credential (OAuth error invalid_client)"),
		},
		"username": {one("username", cfg.Username), one("username", "nobody"), errorPattern("The platform refused the user's credentials (OAuth error invalid_grant)")},
		"password": {one("password", cfg.Password), one("password", "wrong"), errorPattern("The platform refused the user's credentials (OAuth error invalid_grant)")},
		"publishing_url": {
			one("publishing_url", emu.PublishingURL(gatewayURL)),
			one("publishing_url", emu.AdminURL(gatewayURL)+"/apis/media.publishing;version=2;realm=global"),
			errorPattern("The address in publishing_url does not lead to the platform's API", "studio.publishing"),
		},
		"publishing_service": {one("publishing_service", service), one("publishing_service", "media.publishing"), errorPattern(`The platform has no publishing service named "media.publishing" (publishing_service)`)},
		"registry_url": {
			one("registry_url", cfg.PlatformURL+"/apis/registry;version=0/serviceroots"),
			one("registry_url", cfg.PlatformURL+"/apis/registry;version=9/nothing"),
			errorPattern("Unable to list systems", "The address in registry_url does not lead to the platform's API",
				"GET /apis/registry;version=9/nothing: HTTP 404"),
		},
		"ca_cert_pem": {one("ca_cert_pem", serverPEM), one("ca_cert_pem", strangerPEM), errorPattern("The TLS certificate of", "ca_cert_pem")},
		"client_cert_pem": {
			one("client_cert_pem", cert), one("client_cert_pem", "client.pem"),
			errorPattern("client_cert_pem (from the environment variable MEDIAPLATFORM_CLIENT_CERT_PEM) cannot be used: it is a file name"),
		},
		"client_key_pem": {
			one("client_key_pem", key), one("client_key_pem", otherKey),
			errorPattern("its key (client_key_pem (from the environment variable MEDIAPLATFORM_CLIENT_KEY_PEM)) cannot be used",
				"client_key_pem does not match the certificate"),
		},
		"platform_hosts": {
			one("platform_hosts", "platform.invalid, https://tokens.invalid:8443"), one("platform_hosts", "https://platform.example/auth"),
			errorPattern(`The environment variable MEDIAPLATFORM_PLATFORM_HOSTS holds "https://platform.example/auth"`, "has a path"),
		},
		"request_headers": {one("request_headers", string(headers)), one("request_headers", string(wrongHeaders)), errorPattern("403", "check the names and values in request_headers")},
		// false: true would let ca_cert_pem's bad value through.
		"insecure_skip_verify": {
			one("insecure_skip_verify", "false"), one("insecure_skip_verify", "maybe"),
			errorPattern(`The environment variable MEDIAPLATFORM_INSECURE_SKIP_VERIFY is "maybe"`),
		},
		"request_timeout": {
			one("request_timeout", "20s"), one("request_timeout", "0s"),
			errorPattern(`The environment variable MEDIAPLATFORM_REQUEST_TIMEOUT is "0s"`, "not positive"),
		},
		"max_retries": {
			one("max_retries", "2"), one("max_retries", "-1"),
			errorPattern(`The environment variable MEDIAPLATFORM_MAX_RETRIES is "-1"`, "between 0 and 10"),
		},
		"refresh_strategy": {
			one("refresh_strategy", client.RefreshIndividual), one("refresh_strategy", "fast"),
			errorPattern(`The environment variable MEDIAPLATFORM_REFRESH_STRATEGY is "fast"`),
		},
		"render_wait": {
			one("render_wait", client.RenderWaitIndividual), one("render_wait", "fast"),
			errorPattern(`The environment variable MEDIAPLATFORM_RENDER_WAIT is "fast"`),
		},
	}

	documented := documentedEnvSettings(t)
	for setting := range documented {
		if _, ok := probes[setting]; !ok {
			t.Errorf("the argument %s documents the environment variable %s, and this test does not drive it: add a "+
				"probe for it (a value that works against the gateway, one that cannot)", setting, documented[setting])
		}
	}
	for setting := range probes {
		if _, ok := documented[setting]; !ok {
			t.Errorf("this test drives %s, which documents no environment variable", setting)
		}
	}
	if t.Failed() {
		return
	}

	// Every setting at its good value, but for the ones that exclude another: the
	// client credential as its id and secret, the publishing address by its service.
	base := map[string]string{}
	for _, setting := range slices.Sorted(maps.Keys(probes)) {
		if setting == "basic_token" || setting == "publishing_url" {
			continue
		}
		maps.Copy(base, probes[setting].good)
	}
	environment := func(overrides ...map[string]string) []string {
		values := maps.Clone(base)
		for _, o := range overrides {
			maps.Copy(values, o)
		}
		var env []string
		for setting, value := range values {
			if value != "" {
				env = append(env, documented[setting]+"="+value)
			}
		}
		return env
	}

	w := newWorkspace(t, target, "")
	w.writeProvider(`
provider "mediaplatform" {}
`, fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
resource "mediaplatform_score" "test" {
  score_url = %q
}
data "mediaplatform_health" "test" {}
data "mediaplatform_systems" "test" {}
`, accDomain(), accScoreURL(accName())))
	w.env = environment()
	w.run("apply", "-auto-approve")
	if out := w.run("plan", "-detailed-exitcode"); !strings.Contains(out, "No changes") {
		t.Errorf("every setting from the environment: the plan after apply is not empty:\n%s", out)
	}
	if ctl := target.control(t, "that the platform holds the score"); ctl.Stats().Scores != 1 {
		t.Errorf("the platform holds %d scores, want 1", ctl.Stats().Scores)
	}
	t.Cleanup(func() {
		w.env = environment()
		w.run("destroy", "-auto-approve")
	})

	// The settings left out above, each from its variable alone.
	for _, setting := range []string{"basic_token", "publishing_url"} {
		w.env = environment(probes[setting].good)
		if out := w.run("plan", "-lock=false"); !strings.Contains(out, "No changes") {
			t.Errorf("%s from %s: the plan is not empty:\n%s", setting, documented[setting], out)
		}
	}

	for _, setting := range slices.Sorted(maps.Keys(probes)) {
		probe := probes[setting]
		t.Run(setting, func(t *testing.T) {
			t.Parallel()
			cmd := w.command("plan", "-lock=false")
			cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "MEDIAPLATFORM_") })
			cmd.Env = append(cmd.Env, environment(probe.good, probe.bad)...)
			out, err := cmd.CombinedOutput()
			switch {
			case err == nil:
				t.Errorf("%s holding a value that cannot work: the plan succeeded, so the variable is not read:\n%s",
					documented[setting], out)
			case !probe.want.Match(out):
				t.Errorf("%s holding a value that cannot work: the error lacks %q:\n%s", documented[setting], probe.want, out)
			}
		})
	}
}

// envSample is a value of an argument other than its default, written as its
// environment variable holds it, with the arguments it cannot go without (a
// certificate's key), which every configuration of the sample's test holds.
type envSample struct {
	value string
	with  map[string]string
	// bad is a value the variable may not hold, which Configure refuses naming the
	// variable ("" where the platform, not the provider, is the judge).
	bad string
}

// envSamples holds a sample for every argument with an environment variable;
// TestEnvironment_eachVariableAloneTakesEffect fails for an argument without one.
func envSamples(t *testing.T) map[string]envSample {
	cert, key := testca.New(t, "client CA").Issue(t, "terraform", time.Now().Add(time.Hour))
	return map[string]envSample{
		"admin_url":            {value: "https://admin.example/api/v1"},
		"admin_username":       {value: "admin"},
		"admin_password":       {value: "admin-secret"},
		"platform_url":         {value: "https://platform.example", bad: "platform.example"},
		"client_id":            {value: "terraform"},
		"client_secret":        {value: "terraform-secret"},
		"basic_token":          {value: base64.StdEncoding.EncodeToString([]byte("terraform:terraform-secret"))},
		"username":             {value: "alice"},
		"password":             {value: "alice-secret"},
		"publishing_url":       {value: "https://admin.example/api/v1/apis/studio.publishing;version=2;realm=global"},
		"publishing_service":   {value: "studio.publishing"},
		"registry_url":         {value: "https://platform.example/apis/registry;version=0/serviceroots"},
		"platform_hosts":       {value: "platform.internal.example, https://tokens.example:8443"},
		"ca_cert_pem":          {value: testca.New(t, "private CA").PEM},
		"client_cert_pem":      {value: cert, with: map[string]string{"client_key_pem": key}},
		"client_key_pem":       {value: key, with: map[string]string{"client_cert_pem": cert}},
		"request_headers":      {value: `{"X-Api-Key":"k-123"}`},
		"insecure_skip_verify": {value: "true", bad: "maybe"},
		"request_timeout":      {value: "45s", bad: "soon"},
		"max_retries":          {value: "7", bad: "11"},
		"refresh_strategy":     {value: client.RefreshIndividual, bad: "fast"},
		"render_wait":          {value: client.RenderWaitIndividual, bad: "fast"},
	}
}

// blockValue is text, as an environment variable holds it, as the value of an
// argument of type typ in the provider block: the same reading the provider gives
// the variable, so that the two configurations mean the same.
func blockValue(t *testing.T, typ tftypes.Type, text string) tftypes.Value {
	t.Helper()
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(tftypes.String, text)
	case typ.Is(tftypes.Bool):
		b, err := strconv.ParseBool(text)
		if err != nil {
			t.Fatal(err)
		}
		return tftypes.NewValue(tftypes.Bool, b)
	case typ.Is(tftypes.Number):
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return tftypes.NewValue(tftypes.Number, big.NewFloat(float64(n)))
	case typ.Is(tftypes.List{ElementType: tftypes.String}):
		var elems []tftypes.Value
		for _, h := range client.ParsePlatformHosts(text) {
			elems = append(elems, tftypes.NewValue(tftypes.String, h))
		}
		return tftypes.NewValue(typ, elems)
	case typ.Is(tftypes.Map{ElementType: tftypes.String}):
		h, err := client.ParseRequestHeaders(text)
		if err != nil {
			t.Fatal(err)
		}
		elems := map[string]tftypes.Value{}
		for k, v := range h {
			elems[k] = tftypes.NewValue(tftypes.String, v)
		}
		return tftypes.NewValue(typ, elems)
	}
	t.Fatalf("no reading of text as %s", typ)
	return tftypes.Value{}
}

// configuredWith configures a fresh provider, in process through the plugin protocol,
// with block in its provider block and env in the environment (every other
// MEDIAPLATFORM_* variable unset), and returns the client configuration it built,
// without the record of which settings came from the environment.
func configuredWith(t *testing.T, schema *tfprotov6.Schema, block map[string]string, env map[string]string) client.Config {
	t.Helper()
	for _, name := range client.EnvVariables() {
		t.Setenv(name, env[name])
	}
	attrs := map[string]tftypes.Value{}
	for _, a := range schema.Block.Attributes {
		attrs[a.Name] = tftypes.NewValue(a.ValueType(), nil)
		if text, ok := block[a.Name]; ok {
			attrs[a.Name] = blockValue(t, a.ValueType(), text)
		}
	}
	config, err := tfprotov6.NewDynamicValue(schema.ValueType(), tftypes.NewValue(schema.ValueType(), attrs))
	if err != nil {
		t.Fatal(err)
	}
	var tp trackedProviders
	t.Cleanup(func() { tp.closeClients(t) })
	srv, err := tp.factories()["mediaplatform"]()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ConfigureProvider(t.Context(), &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.11.4", Config: &config})
	if err != nil {
		t.Fatal(err)
	}
	text := diagnosticsText(resp.Diagnostics)
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("configuring with %v and %v: %s", block, env, text)
		}
	}
	p := tp.providers[0]
	p.mu.Lock()
	defer p.mu.Unlock()
	cfg := p.config
	cfg.FromEnv = nil
	return cfg
}

// TestEnvironment_eachVariableAloneTakesEffect walks the provider's schema and, for
// every argument whose description names an environment variable, configures the
// provider three ways: the sample value in the provider block, the same value in the
// variable alone (the block leaves the argument out; it holds only what the sample
// cannot go without, a certificate's key), and neither. The variable must
// build the client the block builds, and another than neither does: the variable is
// read, and read as the argument. Before, insecure_skip_verify, request_timeout and
// max_retries had no variable.
func TestEnvironment_eachVariableAloneTakesEffect(t *testing.T) {
	schemas, err := providerserver.NewProtocol6(New("test")())().GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	samples := envSamples(t)
	for _, attr := range schemas.Provider.Block.Attributes {
		m := documentedVariable.FindStringSubmatch(attr.Description)
		if m == nil {
			continue // TestReadmeSettingsTableFollowsTheSchema fails for it
		}
		env := m[1]
		sample, ok := samples[attr.Name]
		if !ok {
			t.Errorf("%s has no sample in envSamples: add a value other than its default", attr.Name)
			continue
		}
		t.Run(attr.Name, func(t *testing.T) {
			neither := configuredWith(t, schemas.Provider, nil, nil)
			inBlock := maps.Clone(sample.with)
			if inBlock == nil {
				inBlock = map[string]string{}
			}
			inBlock[attr.Name] = sample.value
			fromBlock := configuredWith(t, schemas.Provider, inBlock, nil)
			fromEnv := configuredWith(t, schemas.Provider, sample.with, map[string]string{env: sample.value})
			if reflect.DeepEqual(fromBlock, neither) {
				t.Fatalf("%s = %q in the block changes nothing: the sample proves nothing", attr.Name, sample.value)
			}
			if !reflect.DeepEqual(fromEnv, fromBlock) {
				t.Errorf("%s=%q alone does not configure the provider as %s does in the block:\nfrom %s: %+v\nfrom the block: %+v",
					env, sample.value, attr.Name, env, fromEnv, fromBlock)
			}
		})
	}
}

// TestEnvironment_badVariableNamedAtConfigure: every variable whose sample has a value
// that cannot work, alone in the environment, fails Configure (which Terraform runs
// at plan time, before any request) with an error naming the variable, its value and
// the argument it sets. Before, MEDIAPLATFORM_MAX_RETRIES and its kind were not read.
func TestEnvironment_badVariableNamedAtConfigure(t *testing.T) {
	schemas, err := providerserver.NewProtocol6(New("test")())().GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	samples := envSamples(t)
	for _, attr := range schemas.Provider.Block.Attributes {
		m := documentedVariable.FindStringSubmatch(attr.Description)
		if m == nil || samples[attr.Name].bad == "" {
			continue
		}
		env, bad := m[1], samples[attr.Name].bad
		t.Run(attr.Name, func(t *testing.T) {
			for _, name := range client.EnvVariables() {
				t.Setenv(name, "")
			}
			t.Setenv(env, bad)
			var tp trackedProviders
			t.Cleanup(func() { tp.closeClients(t) })
			srv, err := tp.factories()["mediaplatform"]()
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.ConfigureProvider(t.Context(), &tfprotov6.ConfigureProviderRequest{
				TerraformVersion: "1.11.4", Config: schemaValue(t, schemas.Provider, nil),
			})
			if err != nil {
				t.Fatal(err)
			}
			text := diagnosticsText(resp.Diagnostics)
			want := fmt.Sprintf("The environment variable %s is %q", env, bad)
			if !strings.Contains(text, want) || !strings.Contains(text, "provider argument "+attr.Name) {
				t.Errorf("%s=%q: the error does not say %q and name %s:\n%s", env, bad, want, attr.Name, text)
			}
		})
	}
}
