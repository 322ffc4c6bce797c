package provider

// A publish whose outcome stays unknown (a wedged backend: the publish acted on with no
// answer, the look-ups never answered) is remembered, and the next apply on a healthy
// platform settles it without adopt_unrecorded (issue 61 item 5).

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccScore_unsettledPublishIsRemembered stalls the platform during an apply of one
// score (request_timeout = "2s", max_retries = 2): the publish is acted on and never
// answered, and every look-up that could settle it is never answered either. The apply
// fails for the score and keeps it in the state, tainted and without an id. On the
// healthy platform that follows:
//   - published, default: the next apply finds the score, replaces it, and converges
//     (one score on the platform, the state's, an empty plan), with no adopt_unrecorded;
//   - published, untaint: terraform untaint, as the error says, keeps the very score;
//   - not published (the publish never reached the platform): the next apply publishes it;
//   - without score_id: the next apply finds it by its score_url;
//   - published, -refresh=false: the replacement's destroy, which Terraform gives no
//     private state, deletes nothing and says to import the alias's holder; done as it
//     says, the score is kept.
//
// Before, the next apply failed with a 409 asking for adopt_unrecorded or an import,
// and the score stayed on the platform in no state.
func TestAccScore_unsettledPublishIsRemembered(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	for _, tc := range []struct {
		name      string
		aliased   bool
		published bool // the stalled publish reached the platform
		untaint   bool // follow the error's hint before the next apply
		noRefresh bool // the next apply runs with -refresh=false: the destroy settles it
	}{
		{"published, score_id", true, true, false, false},
		{"published, score_id, untaint", true, true, true, false},
		{"not published, score_id", true, false, false, false},
		{"published, no score_id", false, true, false, false},
		{"published, score_id, -refresh=false", true, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulatorWith(t, "a stalled platform", emulator.Options{RenderDelay: testRenderDelay})
			ctl := emu.control(t, "score counts")
			name := accName()
			alias, scoreID := "", ""
			if tc.aliased {
				alias = name + "-ho"
				scoreID = fmt.Sprintf("\n  score_id           = %q", alias)
			}
			w := newWorkspace(t, emu, "")
			w.writeWith(`request_timeout = "2s"
  max_retries     = 2`, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  wait_for_rendering = false%s
}
`, accScoreURL(name), scoreID))

			// The wedged backend: the publish acted on (or not) with no answer, and the
			// reads that could settle it (by alias, the listing) never answered.
			forever := 10 * time.Minute
			publish := faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Delay: forever}
			if !tc.published {
				publish = faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Latency: forever}
			}
			proxy.Add(publish)
			proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores(/[^/]+)?$`, Latency: forever})
			out, err := w.command("apply", "-auto-approve").CombinedOutput()
			if exitCode(t, err) == 0 {
				t.Fatalf("the apply on a stalled platform succeeded:\n%s", out)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.published]; ctl.Stats().Scores != want {
				t.Fatalf("%d scores on the platform after the stalled apply, want %d: the test proves nothing:\n%s",
					ctl.Stats().Scores, want, out)
			}
			for _, want := range []string{"Unable to publish score", "tainted and without an id", "terraform untaint"} {
				if !strings.Contains(flat(string(out)), want) {
					t.Errorf("the stalled apply's error does not say %q:\n%s", want, out)
				}
			}
			if state := w.run("state", "list"); !strings.Contains(state, "mediaplatform_score.test") {
				t.Fatalf("the stalled apply kept nothing in the state:\n%s", out)
			}
			proxy.Clear()
			var first string
			if tc.published {
				first = platformScores(t, emu)[0]
			}
			if tc.untaint {
				w.run("untaint", "mediaplatform_score.test")
			}
			next := []string{"apply", "-auto-approve"}
			if tc.noRefresh {
				next = append(next, "-refresh=false")
			}
			out, err = w.command(next...).CombinedOutput()
			if tc.noRefresh {
				// Terraform gives the replacement's destroy no private state, and so no
				// moment to judge the alias's holder by: the error says to import it, and
				// doing so, as it says, converges.
				lead := "terraform state rm <the resource address named below>, then terraform import <that address> " + alias
				if exitCode(t, err) == 0 || !strings.Contains(flat(string(out)), lead) {
					t.Fatalf("the apply with -refresh=false does not say %q:\n%s", lead, out)
				}
				if n := ctl.Stats().Scores; n != 1 {
					t.Fatalf("%d scores on the platform after the apply with -refresh=false, want the 1 kept", n)
				}
				w.run("state", "rm", "mediaplatform_score.test")
				w.run("import", "mediaplatform_score.test", alias)
				first = platformScores(t, emu)[0]
				out, err = w.command("apply", "-auto-approve").CombinedOutput()
			}
			if exitCode(t, err) != 0 {
				t.Fatalf("the next apply on a healthy platform failed:\n%s", out)
			}
			if tc.published && !tc.noRefresh && !strings.Contains(string(out), "Score found: an earlier apply published it") {
				t.Errorf("the next apply does not say it found the score:\n%s", out)
			}
			ids := platformScores(t, emu)
			id, _ := w.attribute("mediaplatform_score.test", "id").(string)
			if len(ids) != 1 || ids[0] != id {
				t.Fatalf("after the next apply the platform holds %v and the state %q; want one score, the state's:\n%s",
					ids, id, out)
			}
			if tc.untaint && id != first {
				t.Errorf("untainted, the score was replaced: %s, was %s:\n%s", id, first, out)
			}
			if tc.noRefresh && id != first {
				t.Errorf("imported, the score was replaced: %s, was %s:\n%s", id, first, out)
			}
			if !tc.untaint && !tc.noRefresh && tc.published && id == first {
				t.Errorf("tainted, the score %s was kept, not replaced:\n%s", id, out)
			}
			if out, err := w.command("plan", "-detailed-exitcode").CombinedOutput(); exitCode(t, err) != 0 {
				t.Errorf("the plan after the next apply is not empty:\n%s", out)
			}
			w.run("destroy", "-auto-approve")
			if n := ctl.Stats().Scores; n != 0 {
				t.Errorf("%d scores left after destroy", n)
			}
		})
	}
}

// platformScores lists the UUIDs of the scores on the emulator.
func platformScores(t *testing.T, emu *testEmulator) []string {
	t.Helper()
	scores, err := emu.client(t).ListScores(context.Background(), client.ListScoresInput{})
	if err != nil {
		t.Fatalf("listing the platform's scores: %v", err)
	}
	ids := make([]string, len(scores))
	for i, s := range scores {
		ids[i] = s.ID
	}
	return ids
}

// flat is Terraform's output with its diagnostics' line folding undone.
func flat(out string) string {
	out = regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(out, "")
	return strings.Join(strings.Fields(regexp.MustCompile(`(?m)^\s*│`).ReplaceAllString(out, "")), " ")
}
