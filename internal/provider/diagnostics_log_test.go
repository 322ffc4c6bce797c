package provider

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccDiagnostics_logLines reads a TF_LOG=debug plan through the real CLI: the client's request
// lines carry the resource type and id they serve, a retry is logged once, and the
// logout at exit is logged although it runs after Terraform's last request.
func TestAccDiagnostics_logLines(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a retried read")
	w := newWorkspace(t, emu, `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/logged.sib"
}
output "id" {
  value = mediaplatform_score.test.id
}
`)
	w.run("apply", "-auto-approve")
	id := strings.TrimSpace(w.run("output", "-raw", "id"))
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/` + regexp.QuoteMeta(id) + `$`, Times: 1,
		Respond: &faultproxy.Answer{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}}})

	logPath := filepath.Join(t.TempDir(), "terraform.log")
	cmd := w.command("plan")
	cmd.Env = append(cmd.Env, "TF_LOG=debug", "TF_LOG_PATH="+logPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("terraform plan: %v\n%s", err, out)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	logText := string(b)
	read := regexp.MustCompile(`HTTP request: .*path=\S*/scores/` + regexp.QuoteMeta(id) + `\b.*`)
	var served int
	for _, line := range read.FindAllString(logText, -1) {
		if strings.Contains(line, "tf_resource_type=mediaplatform_score") && strings.Contains(line, "resource_id="+id) {
			served++
		}
	}
	if served != 2 {
		t.Errorf("%d request lines of the score's read carry tf_resource_type and resource_id, want 2 (the 503 and the retry):\n%s",
			served, strings.Join(read.FindAllString(logText, -1), "\n"))
	}
	if n := strings.Count(logText, "retrying after a transient answer"); n != 1 {
		t.Errorf("the one retry is logged %d times, want 1", n)
	}
	for _, want := range []string{"Provider exiting: logging out the administrator sessions and removing the platform tokens", "platform token removed"} {
		if !strings.Contains(logText, want) {
			t.Errorf("the log lacks %q (the logout at exit)", want)
		}
	}
	w.run("destroy", "-auto-approve")
}
