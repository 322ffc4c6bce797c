package client

// The shared loads of cache.go: a login or token grant is made once for every call
// that needs it, and one that fails is met once: the calls waiting for it share its
// outcome, and the calls right after it are told the same without asking again.

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

func TestEmulatorConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{LatencyMs: 5}})
	c := env.client()
	runConcurrently(t, 50, func(i int) error {
		var err error
		switch i % 5 {
		case 0:
			_, err = c.GetExternalAuthentication(env.ctx)
		case 1:
			_, err = c.ListScores(env.ctx, ListScoresInput{})
		case 2:
			_, err = c.Systems(env.ctx)
		case 3:
			_, err = c.CheckSession(env.ctx)
		case 4:
			_, err = c.SystemModel(env.ctx, "interplay-mam", "mam-1", false, "")
		}
		return err
	})
	st := env.stats()
	if st.Logins["admin"] != 1 || st.Logins["oauth"] != 1 {
		t.Errorf("logins %v, want 1 admin and 1 oauth", st.Logins)
	}
	if st.Requests["GET /auth"] != 1 || st.Requests["GET /apis/registry;version=0/serviceroots"] != 1 {
		t.Errorf("discovery %d registry %d, want 1 each", st.Requests["GET /auth"], st.Requests["GET /apis/registry;version=0/serviceroots"])
	}
}

// A rejected login cannot succeed with the same credentials: the client asks once
// and gives every later call the same answer, so a plan with many objects causes
// no login storm.
func TestEmulatorRejectedCredentialsAreRemembered(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client(func(cfg *Config) {
		cfg.AdminPassword = "wrong-admin"
		cfg.Password = "wrong-platform"
	})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := c.GetExternalAuthentication(env.ctx); err == nil || !strings.Contains(err.Error(), "administrator login") {
				t.Errorf("GetExternalAuthentication: got %v, want the administrator login failure", err)
			}
		}()
		go func() {
			defer wg.Done()
			var oauthErr *OAuthError
			if _, err := c.GetScore(env.ctx, "any"); !errors.As(err, &oauthErr) || oauthErr.ErrorCode != "invalid_grant" {
				t.Errorf("GetScore: got %v, want invalid_grant", err)
			}
		}()
	}
	wg.Wait()
	stats := env.stats()
	if n := stats.Requests["POST /api/v1/login"]; n != 1 {
		t.Errorf("admin login attempts = %d, want 1", n)
	}
	if n := stats.Requests["POST /auth/oauth2/ropc/default"]; n != 1 {
		t.Errorf("password grant attempts = %d, want 1", n)
	}
}

// TestLoginCutByAStopIsHeld: a stop (the caller's context ends) while the token grant
// and the administrator login are on the wire does not lose what they created: the
// platform granted a token and a session whose answers came after the stop, and the
// client still holds them, so Close removes both. Before, each was abandoned with its
// answer and stayed live until it expired.
func TestLoginCutByAStopIsHeld(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	const held = 400 * time.Millisecond
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/oauth2/ropc/default$`, Delay: held})
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/login$`, Delay: held})
	ctx, cancel := context.WithCancel(env.ctx)
	var wg sync.WaitGroup
	var scoreErr, sessionErr error
	wg.Go(func() { _, scoreErr = c.GetScore(ctx, "cut-1") })
	wg.Go(func() { _, sessionErr = c.CheckSession(ctx) })
	// Both requests are on the wire (the platform acts before the proxy holds the
	// answer) once the platform holds the token and the session.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st := env.emu.Stats(); st.LiveTokens == 1 && st.LiveSessions == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grant and the login never reached the platform: %+v", env.emu.Stats())
		}
	}
	cancel()
	wg.Wait()
	if scoreErr == nil || sessionErr == nil {
		t.Fatalf("the stopped calls succeeded: %v, %v", scoreErr, sessionErr)
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.emu.Stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Errorf("after Close: %d live tokens and %d live sessions, want none", st.LiveTokens, st.LiveSessions)
	}
}

func TestConcurrentFirstCallsShareOneLogin(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	publishDirect(t, f, "s1")
	f.proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: "/scores/s1$", Latency: 5 * time.Millisecond})
	c := newTestClient(t, f.config())
	runConcurrently(t, 100, func(i int) error {
		var err error
		if i%2 == 0 {
			_, err = c.GetScore(context.Background(), "s1")
		} else {
			_, err = c.CheckSession(context.Background())
		}
		return err
	})
	if g, d, l := f.count(routeGrant), f.count("GET /auth"), f.count(routeAdminLogin); g != 1 || d != 1 || l != 1 {
		t.Errorf("grants %d discoveries %d admin logins %d, want 1 each", g, d, l)
	}
}
