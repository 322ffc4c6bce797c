package provider

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// laggingReadMs is how long the emulator's reads miss a new score in
// TestAccScoreLaggingReads, on the platform's clock (lagClock): well within
// client.ReadLagWindow, with room for the client's longest pause between two reads.
const laggingReadMs = 2000

// lagClock is the emulator's platform clock (emulator.Options.PlatformClock) in
// TestAccScoreLaggingReads: it stands still at a whole second (the Date header's
// resolution) until start, so that every score is created at that moment and no read
// sees it however long the machine takes to get to the plan, and from start on it runs
// with this machine's time: the lag ends laggingReadMs after start.
type lagClock struct {
	mu          sync.Mutex
	base, since time.Time
}

func newLagClock() *lagClock { return &lagClock{base: time.Now().Truncate(time.Second)} }

func (c *lagClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since.IsZero() {
		return c.base
	}
	return c.base.Add(time.Since(c.since))
}

func (c *lagClock) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since.IsZero() {
		c.since = time.Now()
	}
}

// startAtTheFirstLaggedRead starts clock once a read of ctl has met the lag, or when
// ctx ends: the lag then lasts laggingReadMs from the first read that met it, however
// late that read came.
func startAtTheFirstLaggedRead(ctx context.Context, ctl *emulator.Emulator, clock *lagClock) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	defer clock.start()
	for ctl.LaggedReads() == 0 {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// TestAccScoreLaggingReads (issue 41 item 8): after a failover to a replica, the
// platform's reads miss a score for a while after its creation (GET 404, the list and
// count without it). The plan Terraform's test driver makes at once after the apply
// of 24 scores (16 aliased) must be empty: a refresh that meets a 404 for a score
// created moments ago reads it again before the state drops it, whether it reads with
// one GET a score or from the batched listing. Before, the state lost the scores the
// lagging reads missed, and the plan wanted to publish them again. The platform's
// clock (lagClock) stands still from the apply to the plan's first read, so that the
// plan meets the lag however slow the machine is; the lag then ends laggingReadMs
// later, on the platform's clock, as a replica catches up.
func TestAccScoreLaggingReads(t *testing.T) {
	t.Parallel()
	for name, strategy := range map[string]string{"one GET a score": "individual", "batched listing": "auto"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := newLagClock()
			emu := newTestEmulatorWith(t, "lagging reads", emulator.Options{
				RenderDelay: testRenderDelay, Faults: emulator.Faults{LaggingReadsMs: laggingReadMs},
				PlatformClock: clock.now,
			})
			ctl := emu.control(t, "lagging reads")
			var watching sync.WaitGroup
			t.Cleanup(watching.Wait)
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
						// The apply read nothing that lagged; the plan that follows will.
						if n := ctl.LaggedReads(); n != 0 {
							return fmt.Errorf("the apply met the lag %d times: it reads back what it published", n)
						}
						watching.Go(func() { startAtTheFirstLaggedRead(t.Context(), ctl, clock) })
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
				t.Fatalf("no read met the emulator's lag of %d ms: the plan after the apply read no score", laggingReadMs)
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
