package provider

// Nothing leaks: redirects, echoed secrets and any document passed off as a command,
// through real Terraform.

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccLeak_redirectIsReported redirects the platform's publish call to a recording
// listener: the apply fails naming the target, and the listener receives nothing.
func TestAccLeak_redirectIsReported(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a redirecting gateway")
	rec := faultproxy.StartRecorder()
	t.Cleanup(rec.Close)
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Respond: faultproxy.Redirect(rec.URL + "/scores")})
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/login$`, Respond: faultproxy.Redirect(rec.URL + "/login")})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/redirected.sib"
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`,
			ExpectError: errorPattern("redirected POST", rec.URL+"/scores", "follows no redirect"),
		}},
	})
	if got := rec.Requests(); len(got) != 0 {
		t.Errorf("the redirect target received %d requests", len(got))
	}
}

// TestAccLeak_commandHrefMustAddressACommand reads the token information through the
// command data source: refused before it is read, nothing reaches the state.
func TestAccLeak_commandHrefMustAddressACommand(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
data "mediaplatform_command" "test" {
  href = "/auth/tokens/current"
}
`,
			ExpectError: errorPattern("does not address a command of the platform's command service"),
		}},
	})
}

// TestAccLeak_echoedSecrets runs terraform at TF_LOG=trace against a platform whose errors
// echo the login form and the password: neither the output nor the log shows a secret.
func TestAccLeak_echoedSecrets(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "echoing errors")
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/login$`, Respond: &faultproxy.Answer{
		Status: 400, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: "bad request: user=admin&pass=" + testAdminPassword + "&r=createsession",
	}})
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/ropc/default$`, Respond: &faultproxy.Answer{
		Status: 400, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"error":"invalid_grant","error_description":"password ` + testPassword + ` is wrong"}`,
	}})
	w := newWorkspace(t, emu, `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/echo.sib"
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`)
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	cmd := w.command("apply", "-auto-approve")
	cmd.Env = append(cmd.Env, "TF_LOG=trace", "TF_LOG_PATH="+logPath)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the apply succeeded:\n%s", out)
	}
	if !strings.Contains(string(out), "***") {
		t.Errorf("the output shows no masked echo:\n%s", out)
	}
	logText, _ := os.ReadFile(logPath)
	for _, secret := range []string{testAdminPassword, testPassword} {
		if strings.Contains(string(out), secret) {
			t.Errorf("the output shows a password:\n%s", out)
		}
		if strings.Contains(string(logText), secret) {
			t.Errorf("the TF_LOG=trace log shows a password")
		}
	}
}
