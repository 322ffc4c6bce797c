package client

// The score calls under answers that lie about the platform's state: a 404 from a
// wrong address, a 2xx nobody can read, pages shorter than asked, statuses nobody
// named. Faults the emulator cannot produce come from the fault-injecting proxy.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// proxiedClient returns a client whose every request passes through a fault proxy in
// front of env's emulator.
func (env *emuEnv) proxiedClient() (*Client, *faultproxy.Proxy) {
	env.t.Helper()
	p := faultproxy.Start(env.srv.URL)
	env.t.Cleanup(p.Close)
	c := env.client(func(cfg *Config) {
		cfg.AdminURL = env.emu.AdminURL(p.URL)
		cfg.PlatformURL = env.emu.PlatformURL(p.URL)
	})
	return c, p
}

func TestScoreNotFoundNeedsTheCollection(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})

	// A publishing address the platform does not serve answers 404 for every score:
	// that is an address error, never "gone".
	wrong := env.client(func(cfg *Config) {
		cfg.PublishingURL = env.srv.AdminURL() + "/apis/media.publishin;version=2;realm=global"
	})
	for name, call := range map[string]func() error{
		"get":    func() error { _, err := wrong.GetScore(env.ctx, "some-alias"); return err },
		"delete": func() error { return wrong.DeleteScore(env.ctx, "some-alias", false) },
	} {
		err := call()
		if IsNotFound(err) || !IsAddressError(err) {
			t.Errorf("%s through a wrong publishing_url: IsNotFound %v, IsAddressError %v: %v", name, IsNotFound(err), IsAddressError(err), err)
		}
		if err != nil && !strings.Contains(err.Error(), "publishing_url") {
			t.Errorf("%s: the error does not name publishing_url: %v", name, err)
		}
	}

	// The right address: a missing score is gone, and the collection is asked once.
	c := env.client()
	before := env.stats().Requests["GET "+routeScores]
	for range 3 {
		if _, err := c.GetScore(env.ctx, "missing"); !IsNotFound(err) {
			t.Fatalf("missing score: %v", err)
		}
	}
	if err := c.DeleteScore(env.ctx, "missing", false); !IsNotFound(err) {
		t.Fatalf("deleting a missing score: %v", err)
	}
	if n := env.stats().Requests["GET "+routeScores] - before; n != 1 {
		t.Errorf("%d score list requests to confirm four 404s, want 1 (remembered)", n)
	}
}

func TestExternalAuthenticationNotFoundIsAnAddressError(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Path: `/externalauth$`, Respond: &faultproxy.Answer{
		Status: 404, Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body: `{"code":"admin/NOT_FOUND","message":"not here","status":404}`,
	}})
	_, err := c.GetExternalAuthentication(env.ctx)
	if IsNotFound(err) || !IsAddressError(err) || !strings.Contains(err.Error(), "admin_url") {
		t.Errorf("GET: %v", err)
	}
	_, err = c.PutExternalAuthentication(env.ctx, ExternalAuthentication{DomainName: "CORP"})
	if IsNotFound(err) || !IsAddressError(err) {
		t.Errorf("PUT: %v", err)
	}
}

func TestPublishWithUnreadableAnswer(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]func([]byte) []byte{
		"truncated": faultproxy.Truncate(20),
		"empty":     faultproxy.Replace(""),
		"no score":  faultproxy.Replace(`{"something": "else"}`),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := newEmuEnv(t, emulator.Options{})
			c, p := env.proxiedClient()
			p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Body: body})

			// Without an alias: the score is found by its scoreUrl, created since the
			// publish was sent, and adopted (saying so), not published twice.
			s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/a.sib"})
			if err != nil || s.ScoreURL != "https://cdn.example/a.sib" || !strings.Contains(s.Recovered, "found by its scoreUrl") {
				t.Fatalf("no alias: got %+v, %v", s, err)
			}
			if n := env.stats().Scores; n != 1 {
				t.Fatalf("%d scores on the platform, want 1", n)
			}

			// With an alias: the score is recognised by its alias, not published twice.
			s, err = c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/b.sib", Alias: "b"})
			if err != nil || s.Alias != "b" || s.ScoreURL != "https://cdn.example/b.sib" {
				t.Fatalf("alias: got %+v, %v", s, err)
			}
			if n := env.stats().Scores; n != 2 {
				t.Errorf("%d scores on the platform, want 2", n)
			}
		})
	}
}

func TestAllScoresReadsPastShortPages(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	c, p := env.proxiedClient()
	const n = 250
	for i := range n {
		if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/%d.sib", i)}); err != nil {
			t.Fatal(err)
		}
	}
	p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Query: faultproxy.CapLimit(50)})
	all, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
	if err != nil || len(all) != n {
		t.Fatalf("a platform capping pages at 50: %d scores listed (want %d), %v", len(all), n, err)
	}
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.ID] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct scores, want %d", len(seen), n)
	}
	some, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 10, 120)
	if err != nil || len(some) != 120 || some[0].ID != all[10].ID {
		t.Errorf("offset 10, limit 120: %d scores, %v", len(some), err)
	}
}

func TestWaitForRenderingWaitsOutUnknownStatuses(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	c, p := env.proxiedClient()
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/q.sib"})
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []string{"queued", "failed", "ERROR"} {
		p.Clear()
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Body: setStatus(status)})
		// Long enough for the first read on a loaded machine.
		ctx, cancel := context.WithTimeout(env.ctx, 2*time.Second)
		got, err := c.WaitForRendering(ctx, s.ID)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || got == nil || got.Status != status {
			t.Errorf("status %q: got %+v, %v; want to wait until the deadline", status, got, err)
		}
	}
}

// setStatus returns a body rewrite that sets score.status in a score answer (any
// other answer, such as the empty one of a request the client gave up on at its
// deadline, passes unchanged).
func setStatus(status string) func([]byte) []byte {
	return func(b []byte) []byte {
		var doc map[string]map[string]any
		if err := json.Unmarshal(b, &doc); err != nil || doc["score"] == nil {
			return b
		}
		doc["score"]["status"] = status
		out, _ := json.Marshal(doc)
		return out
	}
}
