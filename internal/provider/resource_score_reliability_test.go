package provider

// Reliability: the provider under the platform's failure modes (contract §0 and G):
// transient failures before effect and rate limits, answers lost after effect, access
// tokens outlived by an apply, and administrator sessions expiring between runs.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// publishRoute is the emulator's route of POST /scores, as Stats and Faults name it.
func publishRoute(emu *emulator.Emulator) string {
	return "POST " + emu.PublishingURL("") + "/scores"
}

// TestAccReliability_transientFailures applies 60 scores with aliases while the
// platform fails 20% of requests with 503 before effect and rate-limits at 30
// requests per second: with max_retries = 10 the apply succeeds, every score exists
// exactly once and the next plan is empty.
//
// A request fails for good only when 11 attempts in a row fail. The 503s alone make
// that 0.2^11 ≈ 2e-8 per request, about 1e-5 for the ~500 requests of the test. A 429
// costs a one-second wait and meets a new rate-limit window; with 10 concurrent
// operations and waits of ≥ 100 ms between polls, the load stays near the limit, so a
// 429 is well below a coin toss, and 11 in a row (< 0.5^11 ≈ 5e-4) practically never
// happen.
func TestAccReliability_transientFailures(t *testing.T) {
	t.Parallel()
	const n = 60
	emu := newTestEmulator(t)
	ctl := emu.control(t, "faults")
	ctl.SetFaults(emulator.Faults{FailRate: 0.2, Status: 503, RateLimitPerSecond: 30})
	start := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: providerConfigPlus(emu, "max_retries = 10") + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = %d
  score_url = "https://cdn.example/scores/reliable-${count.index}.sib"
  score_id  = "reliable-${count.index}"
}
`, n),
			Check: func(*terraform.State) error {
				s := ctl.Stats()
				if s.Scores != n {
					return fmt.Errorf("the emulator holds %d scores, want %d", s.Scores, n)
				}
				// Some publish requests failed and were repeated: the faults were in force.
				if posts := s.Requests[publishRoute(ctl)]; posts <= n {
					return fmt.Errorf("%d publish requests for %d scores: no publish failed, the test proves nothing", posts, n)
				}
				return nil
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
	s := ctl.Stats()
	t.Logf("%d requests in %s (publish %d, read %d, delete %d)", s.TotalRequests(), time.Since(start).Round(time.Second),
		s.Requests[publishRoute(ctl)], s.Requests["GET "+ctl.PublishingURL("")+"/scores/{id}"],
		s.Requests["DELETE "+ctl.PublishingURL("")+"/scores/{id}"])
	if s.Scores != 0 {
		t.Errorf("%d scores left after destroy", s.Scores)
	}
}

// TestAccReliability_dropAfterEffectWithAlias loses the answer to the publish request
// after the score was created: the provider looks the alias up, recognises its score
// and does not publish it twice.
func TestAccReliability_dropAfterEffectWithAlias(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "faults")
	ctl.SetFaults(emulator.Faults{DropRate: 1, DropRoutes: []string{publishRoute(ctl)}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/dropped.sib"
  score_id  = "dropped"
}
`,
			Check: resource.ComposeTestCheckFunc(
				func(*terraform.State) error {
					s := ctl.Stats()
					if s.Scores != 1 || s.Requests[publishRoute(ctl)] != 1 {
						return fmt.Errorf("%d scores after %d publish requests, want 1 and 1", s.Scores, s.Requests[publishRoute(ctl)])
					}
					return nil
				},
				func(st *terraform.State) error {
					score, err := emu.client(t).GetScore(context.Background(), "dropped")
					if err != nil {
						return err
					}
					return resource.TestCheckResourceAttr("mediaplatform_score.test", "id", score.ID)(st)
				},
				resource.TestCheckResourceAttr("mediaplatform_score.test", "status", client.ScoreStatusIdle),
			),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

// TestAccReliability_dropAfterEffectWithoutAlias loses the answer to the publish
// request of a score without an alias: the provider finds the score it created by its
// score_url (created since the request was sent) and adopts it, without publishing
// again.
func TestAccReliability_dropAfterEffectWithoutAlias(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "faults")
	ctl.SetFaults(emulator.Faults{DropRate: 1, DropRoutes: []string{publishRoute(ctl)}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/dropped.sib"
}
`,
			Check: func(st *terraform.State) error {
				if s := ctl.Stats(); s.Scores != 1 || s.Requests[publishRoute(ctl)] != 1 {
					return fmt.Errorf("%d scores after %d publish requests, want 1 and 1: the request took effect once and "+
						"was not repeated", s.Scores, s.Requests[publishRoute(ctl)])
				}
				scores, err := emu.client(t).ListAllScores(context.Background(), client.ScoreCriteria{}, 0, 0)
				if err != nil || len(scores) != 1 {
					return fmt.Errorf("listing: %d, %w", len(scores), err)
				}
				return resource.TestCheckResourceAttr("mediaplatform_score.test", "id", scores[0].ID)(st)
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

// TestAccReliability_tokenLifetime applies 40 scores that take seconds to render
// while platform tokens live 3 s: the apply outlives its token and succeeds, the
// client extends the token or grants a new one as it goes, and no token outlives
// the test. (The client extends a token used in the last third of its lifetime;
// here the render polls of a wave of 10 scores are in step and can all miss that
// one-second window, so new grants are as good an answer as extensions.)
func TestAccReliability_tokenLifetime(t *testing.T) {
	t.Parallel()
	const (
		n        = 40
		lifetime = 3 * time.Second
	)
	emu := newTestEmulatorWith(t, "a 3 s token lifetime", emulator.Options{TokenLifetime: lifetime, RenderDelay: time.Second})
	ctl := emu.control(t, "stats")
	var providers trackedProviders
	var applyStart time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers.factories(),
		Steps: []resource.TestStep{{
			PreConfig: func() { applyStart = time.Now() },
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = %d
  score_url = "https://cdn.example/scores/long-${count.index}.sib"
}
`, n),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("mediaplatform_score.test.0", "status", client.ScoreStatusIdle),
				resource.TestCheckResourceAttr(fmt.Sprintf("mediaplatform_score.test.%d", n-1), "status", client.ScoreStatusIdle),
				func(*terraform.State) error {
					if d := time.Since(applyStart); d < 2*lifetime {
						return fmt.Errorf("the apply took %s, not longer than the token lifetime %s: the test proves nothing", d, lifetime)
					}
					s := ctl.Stats()
					if s.Scores != n {
						return fmt.Errorf("%d scores, want %d", s.Scores, n)
					}
					// The plan before had nothing to read, so every grant and extension
					// so far was the apply's: more than its first grant.
					if renewals := s.Requests["POST /auth/tokens/current/extension"] + s.Logins["oauth"] - 1; renewals < 1 {
						return fmt.Errorf("the token was neither extended nor granted again during an apply that outlived it: %v", s.Requests)
					}
					return nil
				},
			),
		}},
	})
	before := ctl.Stats()
	providers.closeClients(t)
	s := ctl.Stats()
	t.Logf("token extensions %d, grants %d; token removals on close %d", s.Requests["POST /auth/tokens/current/extension"],
		s.Logins["oauth"], s.Requests["DELETE /auth/tokens/current"]-before.Requests["DELETE /auth/tokens/current"])
	if s.LiveTokens != 0 || s.LiveSessions != 0 {
		t.Errorf("after closing the clients: %d live tokens, %d live sessions; want 0", s.LiveTokens, s.LiveSessions)
	}
}

// TestAccScore_sharedRenderWait counts, through the CLI, what 30 creates that wait for their
// rendering cost with the shared wait and with one poll per score: the shared wait
// reads the statuses of a wave with one list page once the rendering time is known.
func TestAccScore_sharedRenderWait(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	var config strings.Builder
	for i := range 30 {
		fmt.Fprintf(&config, "resource \"mediaplatform_score\" \"s%02d\" {\n  score_url = %q\n}\n", i, accScoreURL(fmt.Sprintf("wave-%02d", i)))
	}
	reads := map[string]int{}
	for _, strategy := range []string{client.RenderWaitShared, client.RenderWaitIndividual} {
		emu := newTestEmulatorWith(t, "request counts", emulator.Options{RenderDelay: 250 * time.Millisecond})
		ctl := emu.control(t, "request counts")
		w := newWorkspace(t, emu, "")
		w.writeWith(fmt.Sprintf("render_wait = %q", strategy), config.String())
		before := ctl.Stats()
		w.run("apply", "-auto-approve")
		after := ctl.Stats()
		route := func(r string) int { return after.Requests[r] - before.Requests[r] }
		prefix := "GET " + ctl.PublishingURL("")
		reads[strategy] = route(prefix+"/scores/{id}") + route(prefix+"/scores") + route("POST "+ctl.PublishingURL("")+"/scores/count")
		if n := route(publishRoute(ctl)); n != 30 {
			t.Errorf("%s: %d publishes for 30 scores", strategy, n)
		}
		t.Logf("render_wait = %s: 30 creates cost %d reads of their status %s", strategy, reads[strategy], requestDelta(before, after))
		if out := w.run("plan"); !strings.Contains(out, "No changes.") {
			t.Errorf("%s: the plan after the apply is not empty:\n%s", strategy, out)
		}
	}
	if reads[client.RenderWaitShared] > 15 || reads[client.RenderWaitShared]*3 > reads[client.RenderWaitIndividual] {
		t.Errorf("the shared wait read %d times for 30 creates, one poll per score %d: want at most 15, and a third",
			reads[client.RenderWaitShared], reads[client.RenderWaitIndividual])
	}
}

// TestAccScore_rateLimitedParallelApply applies 50 scores with -parallelism=50 against a
// platform that admits 10 requests per second, with the default retry settings:
// every score is published once, none is tainted, no 429 reaches the user.
func TestAccScore_rateLimitedParallelApply(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const n = 50
	emu := newTestEmulatorWith(t, "a rate limit", emulator.Options{
		RenderDelay: 50 * time.Millisecond, Faults: emulator.Faults{RateLimitPerSecond: 10},
	})
	ctl := emu.control(t, "score counts")
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = %d
  score_url = "https://cdn.example/scores/burst-${count.index}.sib"
  score_id  = "burst-${count.index}"
}
`, n))
	out := w.run("apply", "-auto-approve", "-parallelism=50")
	s := ctl.Stats()
	if s.Scores != n || s.Requests[publishRoute(ctl)] < n {
		t.Errorf("the emulator holds %d scores after %d publish requests, want %d", s.Scores, s.Requests[publishRoute(ctl)], n)
	}
	if strings.Contains(out, "Too Many Requests") || strings.Contains(out, "tainted") || strings.Contains(out, "Unable to confirm") {
		t.Errorf("the apply reported a rate limit or a warning:\n%s", out)
	}
	w.run("destroy", "-auto-approve", "-parallelism=50")
	if s := ctl.Stats(); s.Scores != 0 {
		t.Errorf("%d scores left after destroy", s.Scores)
	}
}
