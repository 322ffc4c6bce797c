package client

// Which failures are retried and after how long: backoff, Retry-After (as seconds
// or a date on the platform's clock), the two budgets and the pace after a 429. The
// rate-limit tests run on a fake clock shared with the emulator's rate limit
// (newEmuEnvOnClock), but for two that pace in real time: the dates of
// TestRetryAfterDateOnThePlatformsClock, and TestCloseUnderASharedRateLimit (exit_test.go).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestRateLimitWithoutRetryAfter: a platform whose 429s carry no Retry-After (RFC 6585
// makes it optional) admits one request a second, and ten reads come one after
// another, as a plan's calls do. The client keeps the pace as it does with
// Retry-After: every read succeeds, with at most 2 refusals for each request that
// passed (its own backoff alone met the full window about three times a request).
func TestRateLimitWithoutRetryAfter(t *testing.T) {
	t.Parallel()
	env, _ := newEmuEnvOnClock(t, emulator.Options{})
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
	env, _ := newEmuEnvOnClock(t, emulator.Options{})
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

func TestEmulatorRetryAfter(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	env.emu.SetFaults(emulator.Faults{FailRate: 1, Status: 429, RetryAfter: 1})
	go func() {
		// Lift the fault once the 429 has been answered, however slow the machine.
		for env.stats().Requests["GET "+routeScores] < 2 {
			time.Sleep(10 * time.Millisecond)
		}
		env.emu.SetFaults(emulator.Faults{})
	}()
	start := time.Now()
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second || d > 10*time.Second {
		t.Errorf("took %v, want about the 1 s Retry-After", d)
	}
	if n := env.stats().Requests["GET "+routeScores]; n != 3 {
		t.Errorf("list requests %d, want 3 (1 + a 429 + its retry)", n)
	}
}

// TestRetryBudgetsApart: 429 answers spend the rate-limit budget, not max_retries: a
// 503 or a lost DELETE answer after four 429s is still retried.
func TestRetryBudgetsApart(t *testing.T) {
	t.Parallel()
	tooMany := &faultproxy.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"0"}}}
	unavailable := &faultproxy.Answer{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}}

	t.Run("429s then a 503", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		c, p := env.proxiedClient()
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: tooMany, Times: 4})
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: unavailable, Times: 1})
		if _, err := c.Health(env.ctx); err != nil {
			t.Fatalf("health after four 429s and a 503: %v", err)
		}
		if n := p.Count(http.MethodGet, `/core/health$`); n != 6 {
			t.Errorf("%d attempts, want 6", n)
		}
	})

	t.Run("429s then a lost DELETE answer", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		c, p := env.proxiedClient()
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/d.sib"})
		if err != nil {
			t.Fatal(err)
		}
		p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/scores/`, Respond: tooMany, Times: 4})
		p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/scores/`, Drop: true, Times: 1})
		// The repeated DELETE finds the score gone: a 404, which the resource takes as done.
		if err := c.DeleteScore(env.ctx, s.ID, false); err != nil && !IsNotFound(err) {
			t.Fatalf("delete after four 429s and a lost answer: %v", err)
		}
		if n := p.Count(http.MethodDelete, `/scores/`); n != 6 {
			t.Errorf("%d DELETE attempts, want 6 (four 429s, the lost one, the repeat)", n)
		}
		if n := env.stats().Scores; n != 0 {
			t.Errorf("%d scores, want 0", n)
		}
	})

	t.Run("max_retries still bounds other failures", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		c, p := env.proxiedClient()
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: tooMany, Times: 2})
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: unavailable})
		if _, err := c.Health(env.ctx); statusOf(err) != http.StatusServiceUnavailable {
			t.Fatalf("got %v, want the 503 once max_retries is spent", err)
		}
		if n := p.Count(http.MethodGet, `/core/health$`); n != 2+DefaultMaxRetries+1 {
			t.Errorf("%d attempts, want %d", n, 2+DefaultMaxRetries+1)
		}
	})
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		f := newProxiedPlatform(t, emulator.Options{})
		var n atomic.Int32
		f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				writeProblem(w, status, "publishing/TOO_MANY_REQUESTS", "slow down")
				return
			}
			writeJSON(w, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
		})
		c := newTestClient(t, f.config())
		if _, err := c.GetScore(context.Background(), "x"); err == nil {
			t.Fatal("warm-up: want not found")
		}
		start := time.Now()
		s, err := c.GetScore(context.Background(), "s1")
		if err != nil {
			t.Fatalf("%d: %v", status, err)
		}
		if d := time.Since(start); d < time.Second {
			t.Errorf("%d: retried after %v, want ≥ 1s", status, d)
		}
		if s.ID != "s1" || n.Load() != 2 {
			t.Errorf("%d: score %v after %d requests", status, s.ID, n.Load())
		}
	}
}

func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, 503, "publishing/SERVICE_UNAVAILABLE", "down")
	})
	cfg := f.config()
	cfg.MaxRetries = 2
	c := newTestClient(t, cfg)
	_, err := c.GetScore(context.Background(), "s1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Code != "publishing/SERVICE_UNAVAILABLE" {
		t.Fatalf("got %v", err)
	}
	if n := f.count("GET " + routeScores + "/s1"); n != 3 {
		t.Errorf("attempts %d, want 3", n)
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	for attempt := range 40 {
		d := backoff(100*time.Millisecond, 2*time.Second, attempt, nil)
		want := min(100*time.Millisecond<<min(attempt, 20), 2*time.Second)
		if d < want/2 || d > want {
			t.Errorf("attempt %d: %v not in [%v, %v]", attempt, d, want/2, want)
		}
	}
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"3"}}}
	if d := backoff(time.Millisecond, time.Second, 0, resp); d != 3*time.Second {
		t.Errorf("Retry-After: %v", d)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d, ok := parseRetryAfter(now.Add(5*time.Second).Format(http.TimeFormat), now); !ok || d != 5*time.Second {
		t.Errorf("HTTP date: %v %v", d, ok)
	}
	if _, ok := parseRetryAfter("soon", now); ok {
		t.Error("garbage accepted")
	}
}

// TestLongRetryAfterFailsAtOnce: a Retry-After beyond the retry budget ends the call
// at once, naming the wait, in seconds or as an HTTP date.
func TestLongRetryAfterFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, retryAfter := range []string{"3600", "Thu, 01 Jan 2099 00:00:00 GMT"} {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(fmt.Sprintf("%d %s", status, retryAfter), func(t *testing.T) {
				t.Parallel()
				env := newEmuEnv(t, emulator.Options{})
				c, p := env.proxiedClient()
				p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Respond: &faultproxy.Answer{
					Status: status, Header: http.Header{"Retry-After": {retryAfter}},
				}})
				start := time.Now()
				_, err := c.ListScores(env.ctx, ListScoresInput{})
				var ra *RetryAfterError
				if !errors.As(err, &ra) || !strings.Contains(err.Error(), "Retry-After") || ra.Wait < time.Hour {
					t.Fatalf("want a Retry-After error naming the wait, got %v", err)
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("gave up after %v, want at once", d)
				}
				if n := p.Count(http.MethodGet, `/scores$`); n != 1 {
					t.Errorf("%d list attempts, want 1", n)
				}
			})
		}
	}
}

// TestRateLimitBurst: 100 concurrent reads against a platform that admits 10 requests
// per second all succeed with the default retry settings: the client slows down as a
// whole after a 429, and a 429 costs time budget, not one of max_retries.
func TestRateLimitBurst(t *testing.T) {
	t.Parallel()
	env, clk := newEmuEnvOnClock(t, emulator.Options{})
	c := env.client(func(cfg *Config) {
		cfg.RetryWaitMin, cfg.RetryWaitMax = DefaultRetryWaitMin, DefaultRetryWaitMax
	})
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/burst.sib"})
	if err != nil {
		t.Fatal(err)
	}
	env.emu.SetFaults(emulator.Faults{RateLimitPerSecond: 10})
	start := clk.Now()
	const n = 100 // ten one-second windows: more than max_retries (4) rounds
	var failed []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := c.GetScore(env.ctx, s.ID); err != nil {
				mu.Lock()
				failed = append(failed, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d reads took %s on the clock, %d refusals", n, clk.Now().Sub(start).Round(time.Millisecond), env.stats().RateLimited)
	if len(failed) > 0 {
		t.Errorf("%d of %d reads failed under the rate limit, e.g. %v", len(failed), n, failed[0])
	}
}

// TestRateGatePaces: after a 429 the gate spaces attempts at four fifths of the rate it
// let through in the second before; a later 429 takes a fifth off, a quiet second adds
// one attempt a second, and the pace ends when the limit was not met for a while.
func TestRateGatePaces(t *testing.T) {
	t.Parallel()
	var g rateGate
	for range 30 { // thirty attempts in the second before the 429
		g.wait(context.Background())
	}
	g.pause(time.Millisecond)
	if g.rate != 24 {
		t.Fatalf("learned rate %.1f, want 24 (four fifths of 30)", g.rate)
	}
	start := time.Now()
	for range 12 {
		g.wait(context.Background())
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("12 attempts at 24 a second took %s, want about half a second", d)
	}
	g.pause(time.Millisecond) // the same burst: no change
	if g.rate != 24 {
		t.Errorf("a second 429 of the same burst changed the rate to %.1f", g.rate)
	}
	g.mu.Lock()
	g.last429 = g.last429.Add(-2 * time.Second)
	g.mu.Unlock()
	g.pause(time.Millisecond)
	if g.rate < 19 || g.rate > 19.3 {
		t.Errorf("a later 429: rate %.2f, want 19.2", g.rate)
	}
	g.mu.Lock()
	g.lastRaise = g.lastRaise.Add(-3 * time.Second)
	g.mu.Unlock()
	g.wait(context.Background())
	if g.rate < 22 || g.rate > 22.3 {
		t.Errorf("three quiet seconds: rate %.2f, want 22.2", g.rate)
	}
	g.mu.Lock()
	g.last429 = g.last429.Add(-paceMemory - time.Second)
	g.mu.Unlock()
	g.wait(context.Background())
	if g.rate != 0 {
		t.Errorf("the pace did not end after %s without a 429", paceMemory)
	}
}

// TestRetryAfterDateOnThePlatformsClock: a Retry-After given as a date is judged on
// the clock of the answer that carries it. With the platform's clock two hours
// ahead, 40 concurrent reads under a rate limit all succeed (this machine's clock
// read the date as a wait of two hours, more than the budget); two hours behind,
// they cost no more requests than on a platform whose clock agrees with this
// machine's (this machine's clock read every date as past: retried at once).
func TestRetryAfterDateOnThePlatformsClock(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, offset int) int {
		env := newEmuEnv(t, emulator.Options{})
		c := env.client(func(cfg *Config) {
			cfg.RetryWaitMin, cfg.RetryWaitMax = DefaultRetryWaitMin, DefaultRetryWaitMax
		})
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/date.sib"})
		if err != nil {
			t.Fatal(err)
		}
		env.emu.SetFaults(emulator.Faults{RateLimitPerSecond: 10, ClockOffsetSeconds: offset,
			Readings: emulator.Readings{RetryAfterDate: true}})
		before := env.emu.Stats().TotalRequests()
		const n = 40
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				if _, err := c.GetScore(env.ctx, s.ID); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("platform clock %+d s: a read failed: %v", offset, err)
		}
		return env.emu.Stats().TotalRequests() - before
	}
	agreed := run(t, 0)
	for _, offset := range []int{2 * 3600, -2 * 3600} {
		if got := run(t, offset); got > 2*agreed+10 {
			t.Errorf("platform clock %+d s: %d requests for 40 reads, against %d with the clocks agreeing", offset, got, agreed)
		}
	}
}
