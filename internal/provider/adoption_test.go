package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// skipBelowCLI skips a CLI-driven test when the workspace's CLI is older than min (or
// is OpenTofu, whose version numbers do not follow Terraform's), saying which it is.
func (w *workspace) skipBelowCLI(minVersion string) {
	w.t.Helper()
	out, err := exec.CommandContext(w.t.Context(), w.terraform, "version", "-json").Output()
	if err != nil {
		w.t.Fatalf("%s version -json: %v", w.terraform, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		w.t.Fatalf("reading the CLI's version: %v\n%s", err, out)
	}
	have, err := version.NewVersion(v.Version)
	if err != nil {
		w.t.Fatalf("reading the CLI's version %q: %v", v.Version, err)
	}
	if isOpenTofu(w.t, w.terraform) || have.LessThan(version.Must(version.NewVersion(minVersion))) {
		w.t.Skipf("needs Terraform %s or later; the CLI is %s %s", minVersion, cliName(w.t, w.terraform), v.Version)
	}
}

// isOpenTofu reports whether the CLI at path is OpenTofu.
func isOpenTofu(t *testing.T, path string) bool {
	return cliName(t, path) == "OpenTofu"
}

// cliName is "OpenTofu" or "Terraform", from the CLI's own version line.
func cliName(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), path, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	if strings.HasPrefix(strings.TrimSpace(string(out)), "OpenTofu") {
		return "OpenTofu"
	}
	return "Terraform"
}

// TestAccScoreList_adoptWithQuery adopts 250 scores published out of band, the way the guide says:
// `terraform query -generate-config-out` writes resource and import blocks, the plan
// imports all of them with no change, and after the apply the plan is empty.
func TestAccScoreList_adoptWithQuery(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores = 250
	emu := newTestEmulator(t)
	w := newWorkspace(t, emu, "")
	w.skipBelowCLI("1.14.0")
	ctl := emu.control(t, "request counts")
	c := emu.client(t)
	record := emu.deleteAtCleanup(t)
	for i := range scores {
		in := client.PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/adopt/%s/score-%03d.sib", accName(), i)}
		if i%2 == 0 {
			in.Alias = fmt.Sprintf("%s-%03d", accName(), i)
			in.Transpose = i%4 == 0
		}
		s, err := c.PublishScore(context.Background(), in)
		if err != nil {
			t.Fatalf("publishing score %d: %v", i, err)
		}
		record(s.ID)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.dir, "scores.tfquery.hcl"), `
# Terraform stops a list at 100 results unless told otherwise.
list "mediaplatform_score" "all" {
  provider = mediaplatform
  limit    = 1000
}
`)

	before := ctl.Stats()
	w.run("query", "-no-color", "-generate-config-out=generated.tf")
	after := ctl.Stats()
	listRoute := dsListRoute(ctl)
	if n := after.Requests[listRoute] - before.Requests[listRoute]; n != scores/client.MaxListLimit+1 {
		t.Errorf("the query read %d pages for %d scores, want %d: %s", n, scores, scores/client.MaxListLimit+1, requestDelta(before, after))
	}
	t.Logf("terraform query -generate-config-out over %d scores: %s", scores, requestDelta(before, after))
	generated, err := os.ReadFile(filepath.Join(w.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(generated), "import {"); n != scores {
		t.Fatalf("generated.tf holds %d import blocks, want %d:\n%.2000s", n, scores, generated)
	}

	before = ctl.Stats()
	out := w.run("plan")
	t.Logf("terraform plan importing %d scores: %s", scores, requestDelta(before, ctl.Stats()))
	if want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", scores); !strings.Contains(out, want) {
		t.Fatalf("the plan of the generated configuration is not %q:\n%.3000s", want, out)
	}
	w.run("apply", "-auto-approve")
	before = ctl.Stats()
	if out := w.run("plan", "-detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("after the import the plan is not empty:\n%.3000s", out)
	}
	t.Logf("terraform plan after the import: %s", requestDelta(before, ctl.Stats()))
}

// TestAccActionCancelCommand_invoke cancels a running command with `terraform apply -invoke`,
// then invokes the action again on the command that has now ended: the second
// invocation is a success (already canceled), and on a finished command it fails
// saying how the command ended.
func TestAccActionCancelCommand_invoke(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "scripted commands")
	running, err := ctl.CreateCommand(emulator.CommandScript{Type: "publishing:purge", Steps: []emulator.CommandStep{
		{Lifecycle: "running", Progress: 40},
	}})
	if err != nil {
		t.Fatal(err)
	}
	finished, err := ctl.CreateCommand(emulator.CommandScript{Steps: []emulator.CommandStep{{Lifecycle: "finished", Progress: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, emu, fmt.Sprintf(`
action "mediaplatform_cancel_command" "running" {
  config {
    id = %q
  }
}
action "mediaplatform_cancel_command" "finished" {
  config {
    id = %q
  }
}
`, running, finished))
	w.skipBelowCLI("1.14.0")

	out := w.run("apply", "-auto-approve", "-invoke=action.mediaplatform_cancel_command.running")
	for _, want := range []string{"is running at 40% progress; canceling it.", "canceled: lifecycle error (cause canceled)."} {
		if !strings.Contains(out, want) {
			t.Errorf("the invocation does not report %q:\n%s", want, out)
		}
	}
	cmd, err := emu.client(t).GetCommand(context.Background(), running)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Command.Lifecycle != client.LifecycleError || cmd.Command.Error == nil || cmd.Command.Error.Cause != "canceled" {
		t.Errorf("after the invocation the command is %q (error %+v), want error with cause canceled", cmd.Command.Lifecycle, cmd.Command.Error)
	}
	w.run("apply", "-auto-approve", "-invoke=action.mediaplatform_cancel_command.running")

	failed := w.command("apply", "-auto-approve", "-invoke=action.mediaplatform_cancel_command.finished")
	b, err := failed.CombinedOutput()
	if err == nil {
		t.Fatalf("canceling a finished command succeeded:\n%s", b)
	}
	if !errorPattern("Command already ended", "has already ended in lifecycle \"finished\", so it cannot be canceled").Match(b) {
		t.Errorf("the failure does not say how the command ended:\n%s", b)
	}
}

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
