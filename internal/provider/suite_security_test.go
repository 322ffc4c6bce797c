package provider

// Security: no credential, token or viewer URL in logs or state; TLS verification
// and its settings; an account without administrator rights.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// The credentials of the emulator's default accounts (contract G).
const (
	testAdminPassword = emulatortest.AdminPassword
	testPassword      = emulatortest.Password
	testClientSecret  = emulatortest.ClientSecret
)

var testBasicToken = base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID + ":" + testClientSecret))

// securityExtras adds to the demo what it does not exercise: a second provider
// configuration with the pre-encoded application credential, and both ephemeral
// resources (Terraform opens them even when nothing refers to them).
const securityExtras = `
provider "mediaplatform" {
  alias       = "basic"
  basic_token = %q
}

resource "mediaplatform_score" "basic" {
  provider  = mediaplatform.basic
  score_url = "https://scores.example.com/demo/basic-credential.sib"
}

ephemeral "mediaplatform_access_token" "tool" {}

ephemeral "mediaplatform_score_view" "once" {
  score = mediaplatform_score.symphony.id
}
`

// TestAccSecurity_demoLogsAndState runs the demo configuration (plus a basic_token
// provider and the ephemeral resources) with the real provider binary at TF_LOG=trace,
// as a user debugging a run would: neither Terraform's log with the provider's lines
// nor the state nor the output holds a password, the client secret, the basic token,
// any session or access token the platform issued, or a viewer URL (apart from the
// managed view's own, which the state must hold and marks sensitive).
func TestAccSecurity_demoLogsAndState(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	terraformPath, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform is not on PATH")
	}
	demo := filepath.Join("..", "..", "examples", "demo")
	if _, err := os.Stat(filepath.Join(demo, "main.tf")); err != nil {
		t.Skipf("no demo configuration: %v", err)
	}
	t.Parallel()

	emu := newTestEmulator(t)
	ctl := emu.control(t, "issued secrets and scripted commands")
	cliConfig := providerCLIConfig(t)
	dir := t.TempDir()
	copyConfiguration(t, demo, dir)
	writeFile(t, filepath.Join(dir, "security.tf"), fmt.Sprintf(securityExtras, testBasicToken))
	logPath := filepath.Join(t.TempDir(), "terraform.log")

	env := append(cleanEnv(),
		"TF_CLI_CONFIG_FILE="+cliConfig, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"TF_LOG=trace", "TF_LOG_PATH="+logPath,
		"TF_VAR_command_id="+scriptDemoCommand(t, emu, filepath.Join(demo, "purge-command.json")),
		client.EnvAdminURL+"="+emu.adminURL(),
		client.EnvAdminUsername+"=admin",
		client.EnvAdminPassword+"="+testAdminPassword,
		client.EnvPlatformURL+"="+emu.platformURL(),
		client.EnvPublishingURL+"="+emu.publishingURL(),
		// The pre-encoded form of the application credential, for every provider block:
		// the other form beside it would be a conflict.
		client.EnvBasicToken+"="+testBasicToken,
		client.EnvUsername+"=alice",
		client.EnvPassword+"="+testPassword,
	)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), terraformPath, append(args, "-no-color", "-input=false")...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// Views disappear with their scores, so secrets are collected before destroy too.
	var output strings.Builder
	secrets := map[string]bool{}
	collect := func() {
		for _, s := range ctl.IssuedSecrets() {
			secrets[s] = true
		}
	}
	output.WriteString(run("apply", "-auto-approve"))
	collect()
	state, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	output.WriteString(run("plan", "-detailed-exitcode")) // fails on a non-empty plan
	collect()
	output.WriteString(run("destroy", "-auto-approve"))
	collect()

	stats := ctl.Stats()
	if stats.Logins["admin"] == 0 || stats.Logins["oauth"] == 0 || stats.Requests["POST "+ctl.PublishingURL("")+"/scores/{id}/view"] < 2 {
		t.Fatalf("the run did not log in both ways and create both views, the test proves nothing: %+v", stats)
	}
	if stats.LiveSessions != 0 || stats.LiveTokens != 0 {
		t.Errorf("after destroy: %d live sessions, %d live tokens; want 0", stats.LiveSessions, stats.LiveTokens)
	}

	// The managed view's URL is in the state, marked sensitive; nothing else is.
	managedView := checkManagedViewSensitive(t, state)
	forbidden := []string{testAdminPassword, testPassword, testClientSecret, testBasicToken}
	for s := range secrets {
		forbidden = append(forbidden, s)
	}
	slices.Sort(forbidden)
	if len(forbidden) < 4+4 { // at least 3 logins (two providers, ephemeral token) and 2 views
		t.Fatalf("only %d secrets to look for: %v", len(forbidden), forbidden)
	}

	logText, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"provider.terraform-provider-mediaplatform", "mediaplatform_client", "administrator login succeeded", "platform token granted"} {
		if !strings.Contains(string(logText), want) {
			t.Fatalf("the log (%d bytes) has no line with %q: the provider's log was not captured", len(logText), want)
		}
	}
	expectAbsent(t, "the TF_LOG=trace log", string(logText), forbidden, "")
	expectAbsent(t, "the state after apply", string(state), forbidden, managedView)
	expectAbsent(t, "terraform's output", output.String(), forbidden, "")
	t.Logf("searched %d bytes of log, %d of state and %d of output for %d secrets", len(logText), len(state), output.Len(), len(forbidden))
}

// expectAbsent fails for every secret found in text, except allowed.
func expectAbsent(t *testing.T, what, text string, secrets []string, allowed string) {
	t.Helper()
	for _, s := range secrets {
		if s == allowed {
			continue
		}
		if i := strings.Index(text, s); i >= 0 {
			t.Errorf("%s holds the secret %q: …%s…", what, s, text[max(0, i-200):min(len(text), i+len(s)+50)])
		}
	}
}

// checkManagedViewSensitive checks that the state marks viewer_url of
// mediaplatform_score_view.rehearsal sensitive, and returns its viewer path.
func checkManagedViewSensitive(t *testing.T, state []byte) string {
	t.Helper()
	var doc struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				Attributes          map[string]any    `json:"attributes"`
				SensitiveAttributes []json.RawMessage `json:"sensitive_attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(state, &doc); err != nil {
		t.Fatalf("reading the state: %v", err)
	}
	for _, r := range doc.Resources {
		if r.Mode != "managed" || r.Type != "mediaplatform_score_view" || len(r.Instances) != 1 {
			continue
		}
		inst := r.Instances[0]
		sensitive := false
		for _, p := range inst.SensitiveAttributes {
			sensitive = sensitive || strings.Contains(string(p), `"viewer_url"`)
		}
		if !sensitive {
			t.Errorf("the state does not mark viewer_url of %s.%s sensitive: %s", r.Type, r.Name, inst.SensitiveAttributes)
		}
		u, _ := inst.Attributes["viewer_url"].(string)
		if i := strings.Index(u, "/viewer/"); i >= 0 {
			return u[i:]
		}
		t.Fatalf("%s.%s has no viewer_url in the state", r.Type, r.Name)
	}
	t.Fatal("the state holds no mediaplatform_score_view")
	return ""
}

// copyConfiguration copies the files of a configuration directory (not its
// subdirectories) into dir.
func copyConfiguration(t *testing.T, from, dir string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.Contains(e.Name(), ".tfstate") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, e.Name()), string(b))
	}
}

// scriptDemoCommand creates the demo's scripted command on the emulator (as
// scripts/demo.sh does) and returns its id.
func scriptDemoCommand(t *testing.T, emu *testEmulator, script string) string {
	t.Helper()
	body, err := os.Open(script)
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, emu.URL+"/_emulator/commands", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Command struct {
			ID string `json:"id"`
		} `json:"command"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK || doc.Command.ID == "" {
		t.Fatalf("scripting the demo command: HTTP %d, %v", resp.StatusCode, err)
	}
	return doc.Command.ID
}

// TestSecurity_sensitiveSchema checks that every secret result is sensitive in the
// schemas, so that Terraform never shows it.
func TestSecurity_sensitiveSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var managed fwresource.SchemaResponse
	NewScoreViewResource().Schema(ctx, fwresource.SchemaRequest{}, &managed)
	if a, ok := managed.Schema.Attributes["viewer_url"]; !ok || !a.IsSensitive() {
		t.Error("mediaplatform_score_view: viewer_url must be sensitive")
	}
	for name, attribute := range map[string]struct {
		new  func() ephemeral.EphemeralResource
		attr string
	}{
		"ephemeral mediaplatform_score_view":   {NewScoreViewEphemeralResource, "viewer_url"},
		"ephemeral mediaplatform_access_token": {NewAccessTokenEphemeralResource, "access_token"},
	} {
		var resp ephemeral.SchemaResponse
		attribute.new().Schema(ctx, ephemeral.SchemaRequest{}, &resp)
		if a, ok := resp.Schema.Attributes[attribute.attr]; !ok || !a.IsSensitive() {
			t.Errorf("%s: %s must be sensitive", name, attribute.attr)
		}
	}
}

// ---- TLS ----

// TestAccSecurity_tlsCACert reaches an HTTPS platform whose certificate authority is
// given in ca_cert_pem.
func TestAccSecurity_tlsCACert(t *testing.T) {
	t.Parallel()
	emu, certPEM := newTLSTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: providerConfigPlus(emu, fmt.Sprintf("ca_cert_pem = %q", certPEM)) + tlsTestResources,
			Check: func(*terraform.State) error {
				if s := emu.control(t, "stats").Stats(); s.Scores != 1 || s.Logins["admin"] == 0 {
					return fmt.Errorf("over HTTPS: %+v", s)
				}
				return nil
			},
		}},
	})
}

// TestAccSecurity_tlsUnknownAuthority refuses a certificate it cannot verify, and
// says that ca_cert_pem is the remedy.
func TestAccSecurity_tlsUnknownAuthority(t *testing.T) {
	t.Parallel()
	emu, _ := newTLSTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config:      emu.providerConfig() + tlsTestResources,
			ExpectError: errorPattern("The TLS certificate of", "(from platform_url) is not trusted by this machine", "set ca_cert_pem"),
		}},
	})
	if s := emu.control(t, "stats").Stats(); s.TotalRequests() != 0 {
		t.Errorf("the emulator served %d requests over an unverified connection", s.TotalRequests())
	}
}

// TestAccSecurity_tlsInsecureSkipVerify reaches the platform without verifying its
// certificate when asked to.
func TestAccSecurity_tlsInsecureSkipVerify(t *testing.T) {
	t.Parallel()
	emu, _ := newTLSTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: providerConfigPlus(emu, "insecure_skip_verify = true") + tlsTestResources,
			Check: func(*terraform.State) error {
				if s := emu.control(t, "stats").Stats(); s.Scores != 1 || s.Logins["admin"] == 0 {
					return fmt.Errorf("with insecure_skip_verify: %+v", s)
				}
				return nil
			},
		}},
	})
}

// TestSecurity_insecureSkipVerifyWarns checks that Configure warns when certificate
// verification is off.
func TestSecurity_insecureSkipVerifyWarns(t *testing.T) {
	t.Parallel()
	_, resp := configureProvider(t, map[string]tftypes.Value{"insecure_skip_verify": tftypes.NewValue(tftypes.Bool, true)})
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure: %v", resp.Diagnostics)
	}
	warnings := resp.Diagnostics.Warnings()
	if len(warnings) != 1 || !strings.Contains(warnings[0].Summary()+warnings[0].Detail(), "insecure_skip_verify") {
		t.Errorf("Configure with insecure_skip_verify = true gave warnings %v, want one naming insecure_skip_verify", warnings)
	}
	if _, resp := configureProvider(t, nil); len(resp.Diagnostics) != 0 {
		t.Errorf("Configure without insecure_skip_verify: %v", resp.Diagnostics)
	}
}

// ---- permissions ----

// TestAccSecurity_notAdministrator manages the settings with an administrator API
// account that lacks administrator rights: a clear permission error, and nothing
// changes on the platform.
func TestAccSecurity_notAdministrator(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "the viewer account")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "mediaplatform" {
  admin_url      = %q
  admin_username = %q
  admin_password = %q
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 636 }]
}
`, emu.adminURL(), emulatortest.ViewerUsername, emulatortest.ViewerPassword),
			ExpectError: errorPattern("Unable to store external authentication settings",
				"The administrator API refused admin_username: it is logged in but not an administrator.", "403", "admin/FORBIDDEN",
				`user "viewer" is not an administrator`),
		}},
	})
	// The settings are read before they are written (nothing another administrator
	// set is written back unread): the read is refused, once, and nothing is written.
	stats := ctl.Stats()
	if gets, puts := stats.Requests["GET /api/v1/externalauth"], stats.Requests["PUT /api/v1/externalauth"]; gets != 1 || puts != 0 {
		t.Errorf("%d GET and %d PUT requests, want the GET refused once, not retried, and no PUT", gets, puts)
	}
	if err := expectSettings(t, emu, client.ExternalAuthentication{}); err != nil {
		t.Error(err)
	}
}
