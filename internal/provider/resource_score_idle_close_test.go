package provider

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccIdleClose_destroyAtTheRateLimit: the platform closes kept-alive connections
// idle for 150 ms (as Node.js does after 5 s, load balancers after 60 s), and a
// request sent on one just as it closes is lost before any answer. With the platform
// also at its rate limit, which holds connections idle while the provider waits, a
// destroy of 30 scores loses a dozen of its deletes so; each is sent again on a new
// connection without spending a retry (max_retries = 1: a delete lost twice on
// retries would fail), and the destroy converges: no score is left.
func TestAccIdleClose_destroyAtTheRateLimit(t *testing.T) {
	t.Parallel()
	const n, idle = 30, 150 * time.Millisecond
	direct := newTestEmulatorWith(t, "connections the platform closes", emulator.Options{RenderDelay: testRenderDelay})
	closer := faultproxy.StartIdleCloser(direct.URL, idle)
	t.Cleanup(closer.Close)
	emu := servedTestEmulator(t, direct.emu, closer.URL)
	ctl := emu.control(t, "its rate limit")
	scores := fmt.Sprintf(`
resource "mediaplatform_score" "s" {
  count     = %d
  score_url = "https://cdn.example/scores/idle-${count.index}.sib"
  score_id  = "idle-${count.index}"
}
`, n)
	// Checked after the step that removes every score: the state is then empty, and
	// Terraform runs no destroy of its own, nor CheckDestroy.
	checkDestroyed := func(*terraform.State) error {
		deletes := 0
		for _, r := range closer.Closed() {
			if r.Method == http.MethodDelete && strings.Contains(r.Path, "/scores/") {
				deletes++
			}
		}
		t.Logf("%d requests lost on a closed connection, %d of them deletes of scores", len(closer.Closed()), deletes)
		if s := ctl.Stats().Scores; s != 0 {
			return fmt.Errorf("%d scores left after the destroy, want none", s)
		}
		if deletes == 0 {
			return fmt.Errorf("no delete was lost on a closed connection: the test proves nothing")
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: emu.providerConfig() + scores},
			{
				PreConfig: func() { ctl.SetFaults(emulator.Faults{RateLimitPerSecond: 8}) },
				Config:    providerConfigPlus(emu, "max_retries = 1"),
				Check:     checkDestroyed,
			},
		},
	})
}

// TestAccIdleClose_applyAtTheRateLimit: the same platform, at its rate limit from the
// start, during an apply of 30 scores. A publish lost on a connection closed while idle
// is not sent again blindly: its recovery finds that it created nothing and publishes
// again; and once the platform has been seen closing idle connections, a publish takes
// a new connection of its own rather than risk a pooled one. One recovery
// (max_retries = 1) is then enough, and no score is published twice. Before, each
// publish sent again by its recovery met another closed connection, and the apply
// failed ("Unable to publish score", 2 of 2 runs).
func TestAccIdleClose_applyAtTheRateLimit(t *testing.T) {
	t.Parallel()
	const n, idle = 30, 150 * time.Millisecond
	direct := newTestEmulatorWith(t, "connections the platform closes", emulator.Options{RenderDelay: testRenderDelay})
	closer := faultproxy.StartIdleCloser(direct.URL, idle)
	t.Cleanup(closer.Close)
	emu := servedTestEmulator(t, direct.emu, closer.URL)
	ctl := emu.control(t, "its rate limit")
	ctl.SetFaults(emulator.Faults{RateLimitPerSecond: 8})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: providerConfigPlus(emu, "max_retries = 1") + fmt.Sprintf(`
resource "mediaplatform_score" "s" {
  count     = %d
  score_url = "https://cdn.example/scores/idle-${count.index}.sib"
  score_id  = "idle-${count.index}"
}
`, n),
			Check: func(*terraform.State) error {
				publishes := 0
				for _, r := range closer.Closed() {
					if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/scores") {
						publishes++
					}
				}
				t.Logf("%d requests lost on a closed connection, %d of them publishes", len(closer.Closed()), publishes)
				if s := ctl.Stats().Scores; s != n {
					return fmt.Errorf("the platform holds %d scores, want %d", s, n)
				}
				if len(closer.Closed()) == 0 {
					return fmt.Errorf("no request was lost on a closed connection: the test proves nothing")
				}
				return nil
			},
		}},
	})
}
