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
	command := regexp.MustCompile(`To import it: terraform\s+import\s+<the\s+resource\s+address\s+named\s+below>\s+(\S+)\s`).
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
