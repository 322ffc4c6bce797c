package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// cbdConfig is one aliased score with create_before_destroy, adopt_unrecorded set or not.
func cbdConfig(alias string, adopt bool) string {
	return fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
  adopt_unrecorded   = %t
  lifecycle {
    create_before_destroy = true
  }
}
`, accScoreURL(alias), alias, adopt)
}

// TestAccScoreLeads_replaceWithCreateBeforeDestroy: terraform apply -replace of an
// aliased score under create_before_destroy, without adopt_unrecorded, meets the alias
// held by the very score it replaces. The error says so (the score this resource
// replaces; adopt_unrecorded keeps it, removing create_before_destroy deletes it
// first) before it names a run stopped before it saved its state. Before, it named
// only the stopped run, which is not what happened.
func TestAccScoreLeads_replaceWithCreateBeforeDestroy(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	w := newWorkspace(t, emu, cbdConfig(accName(), false))
	w.run("apply", "-auto-approve")
	out, err := w.command("apply", "-replace=mediaplatform_score.test", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("the replacement was published while its predecessor holds the alias:\n%s", out)
	}
	want := errorPattern("Unable to publish score", "If this resource is being replaced with create_before_destroy",
		"(terraform apply -replace, a taint), that is the score it replaces", "adopt_unrecorded keeps it as the replacement",
		"Otherwise a run of this configuration that was stopped before it could save its state")
	if !want.MatchString(string(out)) {
		t.Errorf("the error of -replace under create_before_destroy lacks %q:\n%s", want, out)
	}
}

// workspaceScoreConfig is one aliased score, adopt_unrecorded set or not.
func workspaceScoreConfig(scoreURL, alias string, adopt bool) string {
	return fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
  adopt_unrecorded   = %t
}
`, scoreURL, alias, adopt)
}

// TestAccScoreLeads_secondWorkspace: a new workspace of a configuration with a fixed
// score_id meets the alias the default workspace published. The error's first sentence
// sends the user to the other states of the configuration (another workspace, a copy
// elsewhere) before any take-over, and says how to keep aliases apart
// (terraform.workspace in score_id), and names the sibling resource case. Adopting it
// anyway warns that another workspace may own it and how to undo it. Following the
// advice, the workspace publishes its own score beside the default workspace's. Before,
// the lead said "If score … is this configuration's, set adopt_unrecorded = true" and
// named only a stopped run or another configuration.
func TestAccScoreLeads_secondWorkspace(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	// The platform's clock: a minute passes between the two workspaces' runs, so that
	// the default workspace's score is older than the staging run by more than the
	// clock's tolerance, as it is in use.
	var later atomic.Int64
	emu := newTestEmulatorWith(t, "the platform's clock", emulator.Options{RenderDelay: testRenderDelay,
		PlatformClock: func() time.Time { return time.Now().Add(time.Duration(later.Load())) }})
	alias, scoreURL := accName(), accScoreURL("workspaces")
	w := newWorkspace(t, emu, workspaceScoreConfig(scoreURL, alias, false))
	w.run("apply", "-auto-approve")
	later.Store(int64(time.Minute))
	w.run("workspace", "new", "staging")

	out, err := w.command("apply", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("the staging workspace published a score under the default workspace's alias:\n%s", out)
	}
	lead := errorPattern("Unable to publish score", "Before taking over score", "which holds the alias "+fmt.Sprintf("%q", alias),
		"make sure no other state of this configuration manages it: another workspace, or a copy in another directory "+
			"or CI job.", `score_id = "${terraform.workspace}-<name>"`, "Another resource of this configuration with the "+
			"same score_id holds it just the same")
	if !lead.MatchString(string(out)) {
		t.Errorf("the 409 in a second workspace lacks %q:\n%s", lead, out)
	}

	w.write(workspaceScoreConfig(scoreURL, alias, true))
	out = []byte(w.run("apply", "-auto-approve"))
	warning := errorPattern("Warning: Score adopted", "If another state of this configuration manages it instead "+
		"(another workspace, a copy in another directory or CI job), it now has two owners", "terraform state rm",
		`score_id = "${terraform.workspace}-<name>"`)
	if !warning.MatchString(string(out)) {
		t.Errorf("the adoption in a second workspace lacks %q:\n%s", warning, out)
	}
	w.run("state", "rm", "mediaplatform_score.test")

	// The advice: the workspace in the alias keeps the states apart.
	w.write(workspaceScoreConfig(scoreURL, "${terraform.workspace}-"+alias, false))
	w.run("apply", "-auto-approve")
	if n := emu.control(t, "score counts").Stats().Scores; n != 2 {
		t.Errorf("the platform holds %d scores, want the default workspace's and staging's", n)
	}
}

// TestAccScoreLeads_replaceMomentsAfterPublish: with adopt_unrecorded, terraform apply
// -replace under create_before_destroy moments after the score was published meets
// the alias held by a score published within the clock's margin of the run's start.
// The error gives both times as they are and says what each way it can happen means;
// it never says "after this run began" of a score published before it. Before:
// "published at 20:43:04Z, after this run began (20:43:06Z on the platform's clock)".
// The platform's clock is stepped back when the replacement's run sends its first
// request, so that the run begins within a second of the publish on it, however long
// the plan took and terraform and the provider took to start (seconds on a loaded
// machine: stepped before the apply's start, the run began past the margin).
func TestAccScoreLeads_replaceMomentsAfterPublish(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "the platform's clock as a run begins")
	ctl := emu.control(t, "the platform's clock")
	alias := accName()
	w := newWorkspace(t, emu, cbdConfig(alias, true))
	w.run("apply", "-auto-approve")
	s, err := emu.client(t).GetScore(t.Context(), alias)
	if err != nil {
		t.Fatal(err)
	}
	w.run("plan", "-replace=mediaplatform_score.test", "-out=replace.tfplan")
	proxy.Add(faultproxy.Fault{Times: 1, Handle: func(rw http.ResponseWriter, r *http.Request) {
		ctl.SetFaults(emulator.Faults{ClockOffsetSeconds: -int(time.Since(s.CreatedAt) / time.Second)})
		ctl.ServeHTTP(rw, r)
	}})
	cmd := w.command("apply")
	cmd.Args = append(cmd.Args, "replace.tfplan")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the replacement adopted a score published within the clock's margin of its run:\n%s", out)
	}
	want := errorPattern("Unable to publish score", "Give each resource its own score_id, or, if this resource is being "+
		"replaced with create_before_destroy, apply again in a few seconds", "published at", "within 2s of this run's start",
		"the score replaced")
	if !want.MatchString(string(out)) {
		t.Errorf("the error lacks %q:\n%s", want, out)
	}
	// No "after this run began" of a score published before it.
	times := regexp.MustCompile(`published\s+at\s+(\S+),\s+after\s+this\s+run\s+began\s+\((\S+)\s`).FindStringSubmatch(string(out))
	if times != nil {
		published, _ := time.Parse(time.RFC3339Nano, strings.TrimSuffix(times[1], ","))
		began, _ := time.Parse(time.RFC3339Nano, times[2])
		if published.Before(began) {
			t.Errorf("the error says the score was published at %s, after the run began at %s:\n%s", times[1], times[2], out)
		}
	}
}

// TestPublishHintLeavesAdviceToTheLead: where the diagnostic's lead advises for the
// cause (a refused login, a rate limit, a server error), the publish's own sentence
// says only what the publish left, so that the advice is given once. It once said
// "raise max_retries" after the lead's "-parallelism", and a 429 does not count against
// max_retries.
func TestPublishHintLeavesAdviceToTheLead(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		&client.APIError{Status: http.StatusTooManyRequests, Code: "publishing/RATE_LIMITED"},
		&client.APIError{Status: http.StatusInternalServerError},
		&client.APIError{Status: http.StatusBadGateway},
		&client.OAuthError{Status: http.StatusUnauthorized, ErrorCode: "invalid_grant"},
	} {
		if causeLead(err) == "" {
			t.Fatalf("%v: no lead, so the publish's sentence is the only advice", err)
		}
		if hint := publishHint(err, "alias"); causeAdvice.MatchString(hint) {
			t.Errorf("%v: the lead advises, and the publish's sentence advises too (%q): %s",
				err, causeAdvice.FindString(hint), hint)
		}
	}
}
