package client

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// reportingClient is a client of env through a fault proxy whose Close the test
// calls and judges itself (env.client's cleanup wants a Close without error).
func reportingClient(t *testing.T, env *emuEnv) (*Client, *faultproxy.Proxy) {
	t.Helper()
	p := faultproxy.Start(env.srv.URL)
	t.Cleanup(p.Close)
	cfg := env.config()
	cfg.AdminURL, cfg.PlatformURL = env.emu.AdminURL(p.URL), env.emu.PlatformURL(p.URL)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// waitFor polls cond for up to 5 s.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestCloseRemovesAReplacedToken: a token replaced while still valid (its extension
// failed) is removed in the background; when that removal fails, the token is not
// left live without a word: Close removes it with the token it holds.
func TestCloseRemovesAReplacedToken(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{TokenLifetime: 12 * time.Second})
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/extension$`, Status: http.StatusBadRequest})
	p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/auth/tokens/current$`, Times: 1,
		Respond: &faultproxy.Answer{Status: http.StatusInternalServerError}})
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(8500 * time.Millisecond) // less than a third of the lifetime left (3.5 s): the next call renews
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return p.Count(http.MethodDelete, `/auth/tokens/current$`) == 1 }) ||
		env.emu.Stats().LiveTokens != 2 {
		t.Fatalf("%d removals and %d tokens live after the replacement: want the replaced token's removal refused "+
			"and both live, or the test proves nothing", p.Count(http.MethodDelete, `/auth/tokens/current$`), env.emu.Stats().LiveTokens)
	}
	ctx, cancel := context.WithTimeout(env.ctx, exitWindow)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := env.emu.Stats().LiveTokens; n != 0 {
		t.Errorf("%d platform tokens live after Close, want none", n)
	}
}

// TestCloseReportsAGrantUnderWay: a token grant or an administrator login whose caller
// gave up goes on (its credential must not be lost with its answer); when it is still
// under way as the exit's window ends, Close says so: the credential it brings stays
// live.
func TestCloseReportsAGrantUnderWay(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		path string
		call func(context.Context, *Client) error
		want string
		live func(emulator.Stats) int
	}{
		"grant": {`/ropc/default$`, func(ctx context.Context, c *Client) error { _, err := c.ListScores(ctx, ListScoresInput{}); return err },
			"a token grant was still under way", func(s emulator.Stats) int { return s.LiveTokens }},
		"login": {`/login$`, func(ctx context.Context, c *Client) error { _, err := c.CheckSession(ctx); return err },
			"a login was still under way", func(s emulator.Stats) int { return s.LiveSessions }},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := newEmuEnv(t, emulator.Options{})
			c, p := reportingClient(t, env)
			hold := make(chan struct{})
			p.Add(faultproxy.Fault{Method: http.MethodPost, Path: tc.path, Hold: hold})
			callCtx, giveUp := context.WithCancel(env.ctx)
			done := make(chan error, 1)
			go func() { done <- tc.call(callCtx, c) }()
			if !waitFor(func() bool { return p.Count(http.MethodPost, tc.path) == 1 }) {
				t.Fatal("the login was not sent")
			}
			giveUp()
			if err := <-done; err == nil {
				t.Fatal("the call that gave up succeeded")
			}
			ctx, cancel := context.WithTimeout(env.ctx, exitWindow)
			defer cancel()
			err := c.Close(ctx)
			close(hold) // the platform's answer comes after all: its credential is live
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Close: %v; want it to say %q", err, tc.want)
			}
			if !waitFor(func() bool { return tc.live(env.emu.Stats()) == 1 }) {
				t.Errorf("%d credentials live after the held login was answered, want the one Close reported", tc.live(env.emu.Stats()))
			}
			// The held login's answer reaches the client, which logs it, before the
			// environment checks its logs.
			waitFor(func() bool { return strings.Contains(env.logs.String(), `"@message":"HTTP request"`) })
			env.emu.Expire(true, true)
		})
	}
}

// TestCloseForeignRemovalAnswer: a token removal answered 200 by something in between
// (a gateway's HTML page) proves nothing: Close reports the token instead of counting
// it removed.
func TestCloseForeignRemovalAnswer(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := reportingClient(t, env)
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/auth/tokens/current$`, Respond: &faultproxy.Answer{
		Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html"}}, Body: "<html><body>Request received</body></html>"}})
	ctx, cancel := context.WithTimeout(env.ctx, exitWindow)
	defer cancel()
	err := c.Close(ctx)
	if err == nil || !strings.Contains(err.Error(), "removing platform token") || !strings.Contains(err.Error(), "HTML page") {
		t.Errorf("Close: %v; want the removal reported, answered by an HTML page", err)
	}
	if n := env.emu.Stats().LiveTokens; n != 1 {
		t.Errorf("%d tokens live, want the one Close reported", n)
	}
	env.emu.Expire(true, true)
}
