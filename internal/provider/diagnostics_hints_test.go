package provider

// The leads' hints, done as they say, through the terraform CLI.

import (
	"regexp"
	"testing"
)

// TestAccDiagnosticsHints_misspeltVariableAsMeant: with MEDIAPLATFORM_ADMIN_USERNAM set
// instead of MEDIAPLATFORM_ADMIN_USERNAME, the missing admin_username's lead asks "did
// you mean …?"; the variable it names, set with the same value, makes the apply pass.
func TestAccDiagnosticsHints_misspeltVariableAsMeant(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	cfg := emu.config()
	w := newWorkspace(t, emu, "")
	w.writeProvider("", `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`)
	settings := []string{"MEDIAPLATFORM_ADMIN_URL=" + cfg.AdminURL, "MEDIAPLATFORM_ADMIN_PASSWORD=" + cfg.AdminPassword}
	w.env = append(settings, "MEDIAPLATFORM_ADMIN_USERNAM="+cfg.AdminUsername)
	out, err := w.command("apply", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("the apply without admin_username succeeded:\n%s", out)
	}
	meant := regexp.MustCompile(`is not set[\s\S]*did\s+you\s+mean\s+(MEDIAPLATFORM_[A-Z_]+)\?`).FindStringSubmatch(string(out))
	if meant == nil {
		t.Fatalf("the missing setting's lead names no variable meant:\n%s", out)
	}
	w.env = append(settings, meant[1]+"="+cfg.AdminUsername)
	w.run("apply", "-auto-approve")
	w.run("destroy", "-auto-approve")
}
