package client

// A kept-alive connection the server closed: sent again on a new connection when
// that is safe, and blamed on the network only when a new connection fails too.

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// idleClosingClient returns a client of env that reaches the emulator through an
// IdleCloser closing each kept-alive connection idle for idle when the next request
// arrives on it, with the transport New builds (the provider's).
func (env *emuEnv) idleClosingClient(idle time.Duration, mutate ...func(*Config)) (*Client, *faultproxy.IdleCloser) {
	env.t.Helper()
	closer := faultproxy.StartIdleCloser(env.srv.URL, idle)
	env.t.Cleanup(closer.Close)
	c := env.client(append([]func(*Config){func(cfg *Config) {
		cfg.AdminURL = env.emu.AdminURL(closer.URL)
		cfg.PlatformURL = env.emu.PlatformURL(closer.URL)
		cfg.Transport = nil
	}}, mutate...)...)
	return c, closer
}

// lost counts the requests closer lost with this method on a path ending in suffix.
func lost(closer *faultproxy.IdleCloser, method, suffix string) int {
	n := 0
	for _, r := range closer.Closed() {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			n++
		}
	}
	return n
}

// TestStaleConnectionSentAgain: every kept-alive connection is closed as the next
// request arrives on it. With no retries at all (max_retries = 0), a delete, the
// settings' read and write and the exit's logout and token removal still succeed:
// each lost request is sent again at once on a new connection, which spends no retry.
func TestStaleConnectionSentAgain(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	setup := env.client()
	s, err := setup.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/stale.sib", Alias: "stale"})
	if err != nil {
		t.Fatal(err)
	}
	if err := setup.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	c, closer := env.idleClosingClient(0, func(cfg *Config) { cfg.MaxRetries = -1 })
	if _, err := c.GetScore(env.ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteScore(env.ctx, s.ID, false); err != nil {
		t.Errorf("delete: %v", err)
	}
	want := ExternalAuthentication{DomainName: "CORP", Servers: []AuthServer{{Address: "dc1.corp.example", Port: 389, Enabled: true}}}
	if _, err := c.PutExternalAuthentication(env.ctx, want); err != nil {
		t.Errorf("settings: %v", err)
	}
	// A read on a new connection leaves it in the pool, where one of the exit's two
	// requests takes it.
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(env.ctx); err != nil {
		t.Errorf("close: %v", err)
	}
	if lost(closer, http.MethodDelete, "/scores/"+s.ID) == 0 || lost(closer, http.MethodPut, "/externalauth") == 0 ||
		lost(closer, http.MethodDelete, "/auth/tokens/current")+lost(closer, http.MethodGet, "/logout") == 0 {
		t.Fatalf("the delete, the settings' write or the exit's requests were not lost on a closed connection (%v): "+
			"the test proves nothing", closer.Closed())
	}
	st := env.stats()
	if st.Scores != 0 || st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Errorf("%d scores, %d tokens and %d sessions left, want none", st.Scores, st.LiveTokens, st.LiveSessions)
	}
}

// TestStalePublishRecovers: a publish lost on a kept-alive connection the platform
// closed is not sent again blindly; the unknown-outcome recovery finds that it created
// nothing and publishes once more, on a new connection, so the platform holds the score
// once. A later publish takes a new connection from the start.
func TestStalePublishRecovers(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	const idle = 300 * time.Millisecond
	c, closer := env.idleClosingClient(idle)
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(idle + 100*time.Millisecond) // every pooled connection is closed at its next request
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/stale.sib", Alias: "stale-publish"})
	if err != nil {
		t.Fatal(err)
	}
	if lost(closer, http.MethodPost, "/scores") == 0 {
		t.Fatalf("no publish was lost (%v): the test proves nothing", closer.Closed())
	}
	if st := env.stats(); st.Scores != 1 || s.Alias != "stale-publish" {
		t.Errorf("%d scores on the platform (%+v), want the one published", st.Scores, s)
	}
	lostBefore := lost(closer, http.MethodPost, "/scores")
	time.Sleep(idle + 100*time.Millisecond)
	if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/stale-2.sib"}); err != nil {
		t.Fatal(err)
	}
	if n := lost(closer, http.MethodPost, "/scores") - lostBefore; n != 0 {
		t.Errorf("a publish after the platform was seen closing idle connections was lost %d times on one", n)
	}
}

// TestStaleConnectionLeads: the network is blamed only when a new connection fails
// too; a request that was not sent again says that the server closed the connection it
// was sent on.
func TestStaleConnectionLeads(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	s, err := env.client().PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/lead.sib"})
	if err != nil {
		t.Fatal(err)
	}

	// A publish lost on a closed connection, with no retry to recover it: what happened.
	const idle = 300 * time.Millisecond
	c, _ := env.idleClosingClient(idle, func(cfg *Config) { cfg.MaxRetries = -1 })
	if _, err := c.GetScore(env.ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(idle + 100*time.Millisecond) // the publish is the first request on a closed connection
	_, err = c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/lead-2.sib"})
	var netErr *NetworkError
	if !errors.As(err, &netErr) || netErr.Kind != NetworkStaleConnection ||
		!strings.Contains(err.Error(), "closed the connection kept open from an earlier request") {
		t.Errorf("publish on a closed connection: %v; want a NetworkError of kind %s", err, NetworkStaleConnection)
	}

	// A server that closes every connection, new ones too: the network's.
	ln, err := (&net.ListenConfig{}).Listen(env.ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int32
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			n := conns.Add(1)
			go func() {
				defer conn.Close()
				buf := make([]byte, 4096)
				if n == 1 {
					// The first connection answers once and is kept open, so that the next
					// request is sent on it.
					_, _ = conn.Read(buf)
					_, _ = conn.Write([]byte("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
				}
				_, _ = conn.Read(buf)
			}()
		}
	}()
	dead := newTestClient(t, Config{PublishingURL: "http://" + ln.Addr().String() + "/pub", PlatformURL: "http://" + ln.Addr().String(),
		ClientID: "a", ClientSecret: "b", Username: "u", Password: "p", MaxRetries: -1})
	if _, err := dead.Health(env.ctx); err == nil {
		t.Fatal("the first request succeeded against a server answering 404")
	}
	_, err = dead.Health(env.ctx)
	if !errors.As(err, &netErr) || netErr.Kind != NetworkOther || conns.Load() < 2 {
		t.Errorf("a new connection failed too: %v after %d connections; want a NetworkError of kind %s after a new connection",
			err, conns.Load(), NetworkOther)
	}
}
