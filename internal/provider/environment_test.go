package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"

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
