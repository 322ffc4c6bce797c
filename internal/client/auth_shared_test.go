package client

// A login or token grant that fails is met once by every call that needs it: the calls
// waiting for it share its outcome, and the calls right after it are told the same
// without asking again (issue 41 item 1).

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

// stuckLogin runs calls of one kind against a login that never answers: twelve at once,
// then twelve one after another, then, once the login answers again, calls until one
// succeeds. path is the login's path (a regular expression) and call one call that
// needs it.
func stuckLogin(t *testing.T, path string, call func(context.Context, *Client) error) {
	t.Helper()
	env := newEmuEnv(t, emulator.Options{})
	const retries = 2
	p := faultproxy.Start(env.srv.URL)
	t.Cleanup(p.Close)
	c := env.client(func(cfg *Config) {
		cfg.AdminURL = env.emu.AdminURL(p.URL)
		cfg.PlatformURL = env.emu.PlatformURL(p.URL)
		cfg.RequestTimeout = time.Second
		cfg.MaxRetries = retries
	})
	stuck := p.Add(faultproxy.Fault{Method: http.MethodPost, Path: path, Latency: time.Hour})

	const calls = 12
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() { errs[i] = call(env.ctx, c) })
	}
	wg.Wait()
	for i, err := range errs {
		var netErr *NetworkError
		if !errors.As(err, &netErr) || netErr.Kind != NetworkTimeout {
			t.Fatalf("call %d against the stuck login: %v, want the login's timeout", i, err)
		}
	}
	if n := p.Hits(stuck); n > retries+1 {
		t.Errorf("%d calls at once sent %d logins to the stuck server, want at most max_retries + 1 = %d",
			calls, n, retries+1)
	}

	// The calls right after it fail at once with the same cause, sending nothing.
	sent := p.Hits(stuck)
	for i := range calls {
		err := call(env.ctx, c)
		var netErr *NetworkError
		if !errors.As(err, &netErr) || netErr.Kind != NetworkTimeout || !strings.Contains(err.Error(), "the failure of a call") {
			t.Fatalf("call %d after the shared failure: %v, want the same timeout, said to be an earlier call's", i, err)
		}
	}
	if n := p.Hits(stuck) - sent; n != 0 {
		t.Errorf("%d calls right after the shared failure sent %d more logins, want none", calls, n)
	}

	// A failure is held only for as long as it took to learn: the server that answers
	// again is asked again, and the run goes on.
	p.Clear()
	deadline := time.Now().Add(time.Minute)
	for {
		err := call(env.ctx, c)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the login answers again, and a minute later calls still fail: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestStuckGrantIsMetOnce(t *testing.T) {
	t.Parallel()
	stuckLogin(t, `/ropc/default$`, func(ctx context.Context, c *Client) error {
		_, err := c.ListScores(ctx, ListScoresInput{Limit: 1})
		return err
	})
}

func TestStuckAdminLoginIsMetOnce(t *testing.T) {
	t.Parallel()
	stuckLogin(t, `/login$`, func(ctx context.Context, c *Client) error {
		_, err := c.GetExternalAuthentication(ctx)
		return err
	})
}

// TestFailedRenewalServesTheTokenHeld: a renewal that fails while the token held is
// still valid leaves that token in use, for the call that asked for the renewal and
// for the calls after it, until the renewal may be tried again.
func TestFailedRenewalServesTheTokenHeld(t *testing.T) {
	t.Parallel()
	held := &AccessToken{Token: "held", lifetime: time.Hour, ExpiresAt: time.Now().Add(10 * time.Minute)}
	l := cache[*AccessToken]{serve: tokenPolicy, ok: true, val: held}
	var loads atomic.Int32
	fail := func(context.Context, *AccessToken, bool) (*AccessToken, error) {
		loads.Add(1)
		time.Sleep(time.Second) // the hold lasts as long
		return nil, &NetworkError{Kind: NetworkTimeout, Timeout: time.Second, Err: errors.New("renewal unanswered")}
	}
	for i := range 3 {
		tok, err := l.get(t.Context(), fail)
		if err != nil || tok != held {
			t.Fatalf("get %d: %v, %v; want the token held", i, tok, err)
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("%d renewals, want 1: the calls right after a failed one use the token held", n)
	}
}

// TestQuickFailureIsAskedAgain: a load that failed at once (a blip) is not held: the
// next call, right after it, loads again.
func TestQuickFailureIsAskedAgain(t *testing.T) {
	t.Parallel()
	var l cache[string]
	var loads atomic.Int32
	load := once(func(context.Context) (string, error) {
		if loads.Add(1) == 1 {
			return "", fmt.Errorf("blip")
		}
		return "session", nil
	})
	if _, err := l.get(t.Context(), load); err == nil {
		t.Fatal("the first load's failure was not returned")
	}
	if v, err := l.get(t.Context(), load); err != nil || v != "session" {
		t.Fatalf("after a failure that came at once: %q, %v; want a new load", v, err)
	}
}

// TestAnsweredFailureIsNotHeld: a load that took long because the platform answered
// (503s with their Retry-After waits, the time queued behind the rate limit) and then
// failed is not held: the call right after it loads again. Before, a 2-minute outage
// made the calls fail for 2 more minutes after it ended.
func TestAnsweredFailureIsNotHeld(t *testing.T) {
	t.Parallel()
	var l cache[string]
	var loads atomic.Int32
	load := once(func(context.Context) (string, error) {
		if loads.Add(1) == 1 {
			time.Sleep(minHeldFailure + 100*time.Millisecond) // the Retry-After waits
			return "", &APIError{Status: http.StatusServiceUnavailable, Method: http.MethodPost, Path: "/login"}
		}
		return "session", nil
	})
	if _, err := l.get(t.Context(), load); err == nil {
		t.Fatal("the first load's failure was not returned")
	}
	if v, err := l.get(t.Context(), load); err != nil || v != "session" || loads.Load() != 2 {
		t.Fatalf("after a failure the platform answered: %q, %v after %d loads; want a new load", v, err, loads.Load())
	}
}

// TestSilentFailureHeldAtMostTwoTimeouts: a load that nothing answered is held, but no
// longer than two request timeouts, however long the load spent waiting before it met
// the silence (here 3 timeouts: a rate limit's queue).
func TestSilentFailureHeldAtMostTwoTimeouts(t *testing.T) {
	t.Parallel()
	const timeout = 400 * time.Millisecond
	var l cache[string]
	var loads atomic.Int32
	load := once(func(context.Context) (string, error) {
		loads.Add(1)
		time.Sleep(3 * timeout)
		return "", &NetworkError{Kind: NetworkTimeout, Timeout: timeout, Attempts: 1, Err: context.DeadlineExceeded}
	})
	if _, err := l.get(t.Context(), load); err == nil {
		t.Fatal("the load's failure was not returned")
	}
	// The call right after it gets the held failure, sending nothing.
	if _, err := l.get(t.Context(), load); err == nil || loads.Load() != 1 {
		t.Fatalf("the call right after a silent failure: %v after %d loads; want the held failure", err, loads.Load())
	}
	l.mu.Lock()
	held := l.heldUntil.Sub(l.failedAt)
	l.mu.Unlock()
	if held > 2*timeout {
		t.Errorf("the silent failure is held for %s, want at most 2 × request_timeout = %s", held, 2*timeout)
	}
}
