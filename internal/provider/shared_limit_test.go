package provider

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccProviderSharedRateLimit runs ten CI jobs at once against one platform whose
// rate limit they share, through the real provider binary under the real CLI: each
// applies and then destroys its own scores, reads the list and the authentication
// settings. Jobs end while the others keep the platform at its limit, so the token
// removal and the logout of each provider meet 429s. After each phase the platform
// holds no platform token and no administrator session. The limit is derived from
// what one job asks of the platform on this machine, so that the ten jobs need
// several times what it lets through, on a slow machine as on a fast one.
func TestAccProviderSharedRateLimit(t *testing.T) {
	terraformPath := cliForTests(t)
	t.Parallel()
	const jobs, scoresPerJob = 10, 4
	emu := newTestEmulatorWith(t, "a shared rate limit", emulator.Options{RenderDelay: testRenderDelay})
	ctl := emu.control(t, "a shared rate limit")
	cliConfig := buildProviderForCLI(t)
	workspaces := make([]*workspace, jobs)
	for j := range workspaces {
		config := `
data "mediaplatform_external_authentication" "current" {}
data "mediaplatform_scores" "all" {
  depends_on = [mediaplatform_score.s]
}
`
		config += fmt.Sprintf(`
resource "mediaplatform_score" "s" {
  count     = %d
  score_url = "https://cdn.example/scores/job%d-${count.index}.sib"
  score_id  = "job%d-${count.index}"
}
`, scoresPerJob, j, j)
		workspaces[j] = &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: cliConfig, emu: emu}
		workspaces[j].write(config)
	}

	// One job alone, unlimited: what it asks of the platform and how fast.
	before := ctl.Stats().TotalRequests()
	start := time.Now()
	workspaces[0].run("apply", "-auto-approve")
	took := time.Since(start)
	demand := float64(ctl.Stats().TotalRequests()-before) / took.Seconds() // requests a second of one job
	workspaces[0].run("destroy", "-auto-approve")
	// Ten jobs would ask for up to ten times that: the platform lets through half of
	// what one job alone asks, a twentieth of what ten could.
	limit := max(2, int(demand/2))
	t.Logf("one job: %d requests a second over %s; the platform lets through %d a second",
		int(demand), took.Round(10*time.Millisecond), limit)
	ctl.SetFaults(emulator.Faults{RateLimitPerSecond: limit})

	for _, phase := range []string{"apply", "destroy"} {
		var wg sync.WaitGroup
		outs := make([]string, jobs)
		failed := make([]error, jobs)
		phaseStart := ctl.Stats()
		for j, w := range workspaces {
			wg.Go(func() {
				out, err := w.command(phase, "-auto-approve").CombinedOutput()
				outs[j], failed[j] = string(out), err
			})
		}
		wg.Wait()
		for j, err := range failed {
			if err != nil {
				t.Fatalf("job %d: terraform %s: %v\n%s", j, phase, err, outs[j])
			}
		}
		st := ctl.Stats()
		t.Logf("terraform %s in ten jobs: %d requests", phase, st.TotalRequests()-phaseStart.TotalRequests())
		if st.LiveTokens != 0 || st.LiveSessions != 0 {
			t.Errorf("after ten jobs' terraform %s: %d platform tokens and %d administrator sessions live, want none",
				phase, st.LiveTokens, st.LiveSessions)
		}
	}
}
