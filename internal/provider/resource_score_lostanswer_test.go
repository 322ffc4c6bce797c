package provider

// A publish whose answer is lost after the platform acted (a gateway's timeout, a
// reset, a cut body), on a platform whose listing lags (issue 51 item 6) and on one
// whose listing does not.

import (
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// lostAnswerScores is how many scores the lost-answer tests configure, and lostAnswers
// how many of their publishes lose the answer after the platform acted.
const (
	lostAnswerScores = 12
	lostAnswers      = 4
)

// TestAccScore_lostPublishAnswers applies 12 scores while the fault proxy loses the
// answers to 4 publishes after the platform acted (2 connections reset, a gateway's
// 504, a body cut short), with score_id and without, on a
// platform whose listing is a search index refreshed every second (GET by id
// real-time, so it never shows lagging reads) and on one whose listing does not lag.
// Each apply ends with 12 scores on the platform, all 12 in the state, exit 0, the 4
// recovered ones named in a warning, and the next plan empty. Before, the unaliased
// scores on the lagging listing ended as 16 on the platform for 12 configured, 4 of
// them in no state, with exit 0 and no warning.
func TestAccScore_lostPublishAnswers(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		indexMs int
		aliased bool
	}{
		{"lagging listing, no score_id", 1000, false},
		{"lagging listing, score_id", 1000, true},
		{"listing without lag, no score_id", 0, false},
		{"listing without lag, score_id", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulatorWith(t, "lost publish answers", emulator.Options{
				RenderDelay: testRenderDelay, Faults: emulator.Faults{IndexRefreshMs: tc.indexMs},
			})
			ctl := emu.control(t, "score counts")
			name := accName()
			alias := ""
			if tc.aliased {
				alias = fmt.Sprintf("\n  score_id           = \"%s-${count.index}\"", name)
			}
			w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count              = %d
  score_url          = "%s-${count.index}.sib"
  wait_for_rendering = false%s
}
`, lostAnswerScores, strings.TrimSuffix(accScoreURL(name), ".sib"), alias))
			// The answers are lost after the platform acted in three ways: a reset, a
			// gateway's timeout, a body cut short.
			faults := []int{
				proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Drop: true, Times: 2}),
				proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Status: http.StatusGatewayTimeout,
					Body: faultproxy.Replace("upstream timed out"), Times: 1}),
				proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Body: faultproxy.Truncate(20), Times: 1}),
			}
			lostHits := func() (n int) {
				for _, f := range faults {
					n += proxy.Hits(f)
				}
				return n
			}

			out, err := w.command("apply", "-auto-approve").CombinedOutput()
			exit := exitCode(t, err)
			inState := len(strings.Fields(w.run("state", "list")))
			s := ctl.Stats()
			t.Logf("%d answers lost after effect: %d scores on the platform for %d configured, %d in the state, exit %d, "+
				"%d publishes sent", lostHits(), s.Scores, lostAnswerScores, inState, exit,
				proxy.Count(http.MethodPost, `/scores$`))
			if lostHits() != lostAnswers {
				t.Fatalf("the proxy lost %d answers, want %d: the test proves nothing", lostHits(), lostAnswers)
			}
			if exit != 0 || s.Scores != lostAnswerScores || inState != lostAnswerScores {
				t.Errorf("exit %d, %d scores on the platform, %d in the state; want exit 0 and %d and %d:\n%s",
					exit, s.Scores, inState, lostAnswerScores, lostAnswerScores, out)
			}
			if n := countWarnings(string(out), "Score published; its answer was lost"); n != lostAnswers {
				t.Errorf("%d warnings name a recovered score, want %d:\n%s", n, lostAnswers, out)
			}
			proxy.Clear()
			if out, err := w.command("plan", "-detailed-exitcode").CombinedOutput(); exitCode(t, err) != 0 {
				t.Errorf("the next plan is not empty:\n%s", out)
			}
			w.run("destroy", "-auto-approve")
		})
	}
}

// countWarnings counts the warnings of a summary in Terraform's output, those it
// folds into "(and N more similar warnings elsewhere)" included.
func countWarnings(out, summary string) int {
	n := strings.Count(out, "Warning: "+summary)
	if m := foldedWarnings.FindStringSubmatch(out); n == 1 && m != nil {
		more, _ := strconv.Atoi(m[1])
		n += more
	}
	return n
}

// foldedWarnings is how Terraform folds similar warnings.
var foldedWarnings = regexp.MustCompile(`\(and (\d+) more similar warnings elsewhere\)`)

// exitCode is the exit code of a command that ended with err (0 for nil); an error
// that is not an exit fails the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		return exitErr.ExitCode()
	}
	t.Fatalf("running terraform: %v", err)
	return -1
}

// TestAccScore_lostPublishAnswerUnsettled: a publish without score_id whose answer is
// lost (a gateway's 504) and whose score the listing does not show within the bound
// is sent once and fails, keeping the resource tainted with what the next run needs,
// rather than being published again on the listing's word; the next apply, on a
// healthy platform, finds that nothing was published and publishes it once. Before,
// it was published again (max_retries times), each copy a duplicate on a lagging
// listing.
func TestAccScore_lostPublishAnswerUnsettled(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a gateway's 504 to every publish")
	ctl := emu.control(t, "score counts")
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`,
		Respond: &faultproxy.Answer{Status: http.StatusGatewayTimeout, Body: "upstream timed out"}})
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL(accName()))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: errorPattern("Nothing to do but apply again", "tainted and without an id",
				"by its score_url, the only score of that address without an alias"),
		}, {
			PreConfig: func() {
				if n := proxy.Count(http.MethodPost, `/scores$`); n != 1 {
					t.Errorf("%d publishes sent, want 1: a publish is never sent again on the listing's word", n)
				}
				proxy.Clear()
			},
			Config: config,
			Check: func(*terraform.State) error {
				if n := ctl.Stats().Scores; n != 1 {
					return fmt.Errorf("%d scores on the platform after the next apply, want 1", n)
				}
				return nil
			},
		}},
	})
	if n := proxy.Count(http.MethodPost, `/scores$`); n != 2 {
		t.Errorf("%d publishes sent in all, want 2", n)
	}
}
