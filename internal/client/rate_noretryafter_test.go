package client

import (
	"context"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestRateLimitWithoutRetryAfter: a platform whose 429s carry no Retry-After (RFC 6585
// makes it optional) admits one request a second, and ten reads come one after
// another, as a plan's calls do. The client keeps the pace as it does with
// Retry-After: every read succeeds, with at most 2 refusals for each request that
// passed (its own backoff alone met the full window about three times a request).
func TestRateLimitWithoutRetryAfter(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client(func(cfg *Config) {
		cfg.RetryWaitMin, cfg.RetryWaitMax = DefaultRetryWaitMin, DefaultRetryWaitMax
	})
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/pace.sib"})
	if err != nil {
		t.Fatal(err)
	}
	env.emu.SetFaults(emulator.Faults{RateLimitPerSecond: 1, RateLimitWithoutRetryAfter: true})
	before := env.stats()
	for i := range 10 {
		if _, err := c.GetScore(env.ctx, s.ID); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	after := env.stats()
	refused := after.RateLimited - before.RateLimited
	passed := after.TotalRequests() - before.TotalRequests() - refused
	t.Logf("%d refusals for %d requests passed", refused, passed)
	if refused == 0 || refused > 2*passed {
		t.Errorf("%d refusals for %d requests passed; want some, and at most 2 a request", refused, passed)
	}
}

// TestLongWindowWithoutRetryAfter: a limit of one request per 6 s window whose 429s
// carry no Retry-After (a per-minute limit, shortened). Waiting a fixed second met the
// same window five times a request; the waits grow instead (1 s, 2 s, 4 s), so each
// read after the first is refused at most 3 times.
func TestLongWindowWithoutRetryAfter(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client(func(cfg *Config) {
		cfg.RetryWaitMin, cfg.RetryWaitMax = DefaultRetryWaitMin, DefaultRetryWaitMax
	})
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/window.sib"})
	if err != nil {
		t.Fatal(err)
	}
	env.emu.SetFaults(emulator.Faults{RateLimitPerSecond: 1, RateLimitWindowSeconds: 6, RateLimitWithoutRetryAfter: true})
	before := env.stats()
	const reads = 3
	for i := range reads {
		if _, err := c.GetScore(env.ctx, s.ID); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	refused := env.stats().RateLimited - before.RateLimited
	t.Logf("%d refusals for %d reads at one request per 6 s", refused, reads)
	if refused > 3*(reads-1) {
		t.Errorf("%d refusals for %d reads; want at most 3 for each read after the first", refused, reads)
	}
	env.emu.SetFaults(emulator.Faults{})
}

// TestExitWithoutRetryAfter: at exit, a logout and a token removal refused with 429s
// that carry no Retry-After are repeated after a second, not at once: within the exit
// window each is sent at most twice.
func TestExitWithoutRetryAfter(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := holdingClient(t, env)
	env.emu.SetFaults(emulator.Faults{RateLimitPerSecond: 1, RateLimitWithoutRetryAfter: true})
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil { // the window's one request
		t.Fatal(err)
	}
	before := env.stats()
	ctx, cancel := context.WithTimeout(env.ctx, exitWindow)
	defer cancel()
	err := c.Close(ctx)
	refused := env.stats().RateLimited - before.RateLimited
	t.Logf("Close: %v; %d refusals", err, refused)
	if refused == 0 || refused > 4 {
		t.Errorf("the exit's two requests were refused %d times within the window, want 1 to 4", refused)
	}
	env.emu.SetFaults(emulator.Faults{})
	env.emu.Expire(true, true)
}
