package provider

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccProviderRateLimitWithoutRetryAfter: a plan of the health data source through
// the provider binary under a platform limit of 1 request a second, once with
// Retry-After on its 429s and once without (RFC 6585 makes it optional). Without it,
// the provider finds the pace by itself as it does with it: at most 2 refusals for each
// request that passes, and about the same wall time, the exit's token removal included.
func TestAccProviderRateLimitWithoutRetryAfter(t *testing.T) {
	terraformPath := cliForTests(t)
	t.Parallel()
	emu := newTestEmulatorWith(t, "a rate limit without Retry-After", emulator.Options{})
	ctl := emu.control(t, "a rate limit without Retry-After")
	dir := t.TempDir()
	w := &workspace{t: t, terraform: terraformPath, dir: dir, cliConfig: providerCLIConfig(t), emu: emu,
		env: []string{"TF_LOG_PROVIDER=WARN", "TF_LOG_PATH=" + filepath.Join(dir, "provider.log")}}
	w.write(`data "mediaplatform_health" "h" {}` + "\n")

	plan := func(retryAfter bool) (refused, passed int, took time.Duration) {
		ctl.SetFaults(emulator.Faults{RateLimitPerSecond: 1, RateLimitWithoutRetryAfter: !retryAfter})
		time.Sleep(1100 * time.Millisecond) // a new window of the limit
		before, start := ctl.Stats(), time.Now()
		w.run("plan")
		after := ctl.Stats()
		refused = after.RateLimited - before.RateLimited
		return refused, after.TotalRequests() - before.TotalRequests() - refused, time.Since(start)
	}
	refusedWith, passedWith, tookWith := plan(true)
	refused, passed, took := plan(false)
	t.Logf("with Retry-After: %d refusals for %d requests passed in %s; without: %d for %d in %s",
		refusedWith, passedWith, tookWith.Round(100*time.Millisecond), refused, passed, took.Round(100*time.Millisecond))
	if refused > 2*passed {
		t.Errorf("without Retry-After, %d refusals for %d requests passed: more than 2 a request", refused, passed)
	}
	if took > 2*tookWith+5*time.Second {
		t.Errorf("without Retry-After the plan took %s, with it %s: the pace was found by waiting far longer",
			took.Round(100*time.Millisecond), tookWith.Round(100*time.Millisecond))
	}
	if st := ctl.Stats(); st.LiveTokens != 0 {
		t.Errorf("%d platform tokens live after the plans", st.LiveTokens)
	}
}
