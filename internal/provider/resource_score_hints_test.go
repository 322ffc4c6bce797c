package provider

// The score's hints, done as they say, through the terraform CLI.

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestAccScoreHints_importCommandAsGiven: an apply that meets its alias held by a
// score of the provider's own user, in no state, stops with "To import it: terraform
// import <the resource address named below> ALIAS". That command, with the address
// the error names, imports the score, and the next plan has nothing to do; the
// platform holds the score once.
func TestAccScoreHints_importCommandAsGiven(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	alias := accName()
	url := accScoreURL(alias)
	c := emu.client(t)
	held, err := c.PublishScore(context.Background(), client.PublishScoreInput{ScoreURL: url, Alias: alias})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close(context.Background())
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = %q
}
`, url, alias))
	out, err := w.command("apply", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("the apply took the alias of a score in no state:\n%s", out)
	}
	command := regexp.MustCompile(`(?i)import it: terraform\s+import\s+<the\s+resource\s+address\s+named\s+below>\s+(\S+)\s`).
		FindStringSubmatch(string(out))
	address := regexp.MustCompile(`with (mediaplatform_score\.\S+),`).FindStringSubmatch(string(out))
	if command == nil || address == nil {
		t.Fatalf("the error gives no import command and address:\n%s", out)
	}
	// As a user types it: the workspace's own import appends its flags after the
	// arguments, where terraform import takes none.
	imp := w.command("version") // the workspace's environment
	imp.Args = []string{w.terraform, "import", "-input=false", address[1], command[1]}
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("terraform import %s %s, as the error says: %v\n%s", address[1], command[1], err, out)
	}
	if id := w.attribute("mediaplatform_score.test", "id"); id != held.ID {
		t.Errorf("the import took score %v, want %s", id, held.ID)
	}
	if plan := w.run("plan"); !strings.Contains(plan, "No changes.") {
		t.Errorf("after the import as the error says, the plan has changes:\n%s", plan)
	}
	if n := ctl.Stats().Scores; n != 1 {
		t.Errorf("the platform holds %d scores, want 1", n)
	}
}

// TestAccScoreHints_restoredScoreLeftToItsConfiguration: after the platform is restored
// from a backup, the plan warns that the score holding the alias is taken as this
// resource's, and says what to do "if another configuration manages it". The test does
// what that sentence says, as it says it: the resource leaves this configuration when
// the sentence names the configuration, and its state with terraform state rm (the
// address as the warning names it). The next apply then succeeds, the score stays on
// the platform for the configuration that manages it, and the plan after is empty.
// Before, the sentence named only the state: the apply published the alias again and
// failed with a conflict.
func TestAccScoreHints_restoredScoreLeftToItsConfiguration(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "backup and restore")
	alias := accName()
	config := func(version string) string {
		return fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = "https://cdn.example/%[1]s/%[2]s.sib"
  score_id           = %[1]q
  wait_for_rendering = false
}
`, alias, version)
	}
	w := newWorkspace(t, emu, config("v1"))
	w.run("apply", "-auto-approve")
	held := aliasesOn(t, emu)[alias]
	backup := backupAged(ctl)
	w.write(config("v2"))
	w.run("apply", "-auto-approve")
	ctl.RestoreScores(backup)

	out := w.run("plan")
	hint := regexp.MustCompile(`with\s+(mediaplatform_score\.\w+),[\s\S]*?if\s+another\s+configuration\s+manages\s+it,\s+` +
		`remove\s+this\s+resource\s+from\s+([\s\S]*?)\s+before\s+applying`).FindStringSubmatch(out)
	if hint == nil {
		t.Fatalf("the plan after the restore does not say what to do if another configuration manages the score:\n%s", out)
	}
	address, what := hint[1], strings.Join(strings.Fields(hint[2]), " ")
	t.Logf("the warning says: remove %s from %s", address, what)
	if strings.Contains(what, "configuration") {
		w.write("")
	}
	if strings.Contains(what, "terraform state rm") {
		w.run("state", "rm", address)
	}
	apply, err := w.command("apply", "-auto-approve").CombinedOutput()
	if err != nil {
		t.Fatalf("the apply after doing what the warning says failed:\n%s", apply)
	}
	if got := aliasesOn(t, emu)[alias]; got != held {
		t.Errorf("the alias is held by %q after the apply, want the restored score %s, left to its configuration", got, held)
	}
	if out := w.run("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("the plan after is not empty:\n%s", out)
	}
}
