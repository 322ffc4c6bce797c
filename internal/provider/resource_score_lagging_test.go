package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// laggingReadMs is how long the emulator's reads miss a new score in these tests: well
// within client.ReadLagWindow, and longer than the step from an apply to the plan
// Terraform's test driver makes right after it, even on a slow machine.
const laggingReadMs = 6000

// TestAccScoreLaggingReads (issue 41 item 8): after a failover to a replica, the
// platform's reads miss a score for a while after its creation (GET 404, the list and
// count without it). The plan Terraform's test driver makes at once after the apply
// of 24 scores (16 aliased) must be empty: a refresh that meets a 404 for a score
// created moments ago reads it again before the state drops it, whether it reads with
// one GET a score or from the batched listing. Before, the state lost the scores the
// lagging reads missed, and the plan wanted to publish them again.
func TestAccScoreLaggingReads(t *testing.T) {
	t.Parallel()
	for name, strategy := range map[string]string{"one GET a score": "individual", "batched listing": "auto"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu := newTestEmulatorWith(t, "lagging reads", emulator.Options{
				RenderDelay: testRenderDelay, Faults: emulator.Faults{LaggingReadsMs: laggingReadMs},
			})
			ctl := emu.control(t, "lagging reads")
			name := accName()
			list, count := dsListRoute(ctl), "POST "+ctl.PublishingURL("")+"/scores/count"
			var applied emulator.Stats
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: providerConfigPlus(emu, fmt.Sprintf("refresh_strategy = %q", strategy)) + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  count              = 16
  score_url          = "https://cdn.example/%[1]s/aliased-${count.index}.sib"
  score_id           = "%[1]s-${count.index}"
  wait_for_rendering = false
}
resource "mediaplatform_score" "plain" {
  count              = 8
  score_url          = "https://cdn.example/%[1]s/plain-${count.index}.sib"
  wait_for_rendering = false
}
`, name),
					Check: func(*terraform.State) error {
						applied = ctl.Stats()
						return nil
					},
				}, {
					// The driver's plan after the first step was empty; this step's apply
					// publishes nothing either, and the platform holds each score once.
					PreConfig: func() {
						if got := ctl.Stats().Scores; got != 24 {
							t.Errorf("after the plan that followed the apply the platform holds %d scores, want 24", got)
						}
					},
					RefreshState: true,
					Check:        wantScores(ctl, 24),
				}},
			})
			lagged := ctl.LaggedReads()
			t.Logf("refresh_strategy %s: %d reads met the lag; after the apply: %s", strategy, lagged, requestDelta(applied, ctl.Stats()))
			if lagged == 0 {
				t.Fatalf("no read met the emulator's lag of %d ms: the plan came too late to prove anything", laggingReadMs)
			}
			if strategy == client.RefreshAuto && ctl.Stats().Requests[list]+ctl.Stats().Requests[count] == 0 {
				t.Errorf("refresh_strategy auto neither counted nor listed: the batched refresh was not tried")
			}
		})
	}
}

// TestAccScoreLaggingReads_goneIsGone: a young score that is really gone (deleted out
// of band) still leaves the state, once the window of lagging reads has passed for it,
// and is published again: a 404 is doubted, not ignored.
func TestAccScoreLaggingReads_goneIsGone(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "lagging reads", emulator.Options{
		RenderDelay: testRenderDelay, Faults: emulator.Faults{LaggingReadsMs: 500},
	})
	ctl := emu.control(t, "lagging reads")
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  wait_for_rendering = false
}
`, accScoreURL(accName()))
	var first string
	var start time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				first = s.RootModule().Resources["mediaplatform_score.test"].Primary.ID
				return nil
			},
		}, {
			PreConfig: func() {
				c := emu.client(t)
				if err := c.DeleteScore(t.Context(), first, false); err != nil {
					t.Fatal(err)
				}
				_ = c.Close(t.Context())
				start = time.Now()
			},
			Config: config,
			Check: func(s *terraform.State) error {
				if id := s.RootModule().Resources["mediaplatform_score.test"].Primary.ID; id == first {
					return fmt.Errorf("the score deleted out of band is still in the state as %s", id)
				}
				if took := time.Since(start); took > 4*client.ReadLagWindow {
					return fmt.Errorf("the step took %s: the wait on a score gone is unbounded", took)
				}
				return wantScores(ctl, 1)(s)
			},
		}},
	})
}
