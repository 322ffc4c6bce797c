package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestAccScore_adoptWithImportForEach adopts scores published out of band as the guide says for
// Terraform before 1.14, with its very file (examples/guides/adopting): import
// blocks with for_each over the data source mediaplatform_scores, filtered to the
// aliases the configuration is to own. The plan imports those scores and no other
// (those of other owners, and those without an alias, stay out) and changes nothing;
// after the apply the plan is empty. Runs on every CLI (import for_each needs 1.7).
func TestAccScore_adoptWithImportForEach(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores, owned = 12, 4
	emu := newTestEmulator(t)
	c := emu.client(t)
	record := emu.deleteAtCleanup(t)
	for i := range scores {
		in := client.PublishScoreInput{ScoreURL: accScoreURL(accName())}
		switch {
		case i < owned:
			in.Alias, in.Transpose = "orchestra-"+accName(), i%2 == 0
		case i%2 == 0:
			in.Alias = "choir-" + accName() // another team's
		}
		s, err := c.PublishScore(context.Background(), in)
		if err != nil {
			t.Fatalf("publishing a score: %v", err)
		}
		record(s.ID)
		if _, err := c.WaitForRendering(context.Background(), s.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile(filepath.Join("..", "..", "examples", "guides", "adopting", "import-for-each.tf"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, emu, string(guide))
	out := w.run("plan")
	if want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", owned); !strings.Contains(out, want) {
		t.Fatalf("the plan is not %q:\n%.3000s", want, out)
	}
	if strings.Contains(out, "choir-") {
		t.Errorf("the plan adopts another owner's score:\n%.3000s", out)
	}
	w.run("apply", "-auto-approve")
	if out := w.run("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("after the import the plan is not empty:\n%.3000s", out)
	}
}

// TestAccScore_duplicateImport: two import blocks for one score (by UUID and by alias) warn
// that the run imports it twice, naming both ids, instead of "2 imported" in silence.
func TestAccScore_duplicateImport(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	s := publishTestScore(t, emu)
	w := newWorkspace(t, emu, fmt.Sprintf(`
import {
  to = mediaplatform_score.by_uuid
  id = %[1]q
}
import {
  to = mediaplatform_score.by_alias
  id = %[2]q
}
resource "mediaplatform_score" "by_uuid" {
  score_url = %[3]q
  score_id  = %[2]q
}
resource "mediaplatform_score" "by_alias" {
  score_url = %[3]q
  score_id  = %[2]q
}
`, s.ID, s.Alias, s.ScoreURL))
	out := w.run("plan")
	want := errorPattern("Warning: Score imported twice", "Score "+s.ID+" is imported a second time in this run",
		"destroying either deletes it for both")
	if !want.MatchString(out) || !strings.Contains(out, s.ID) || !strings.Contains(out, s.Alias) {
		t.Errorf("the plan that imports one score twice lacks the warning %q:\n%s", want, out)
	}
}
