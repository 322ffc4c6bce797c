package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

func TestEmulatorFaultsDoNotDuplicateScores(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1, Faults: emulator.Faults{FailRate: 0.3, Status: 503}})
	// 0.3^11 per call keeps 400+ calls from ever running out of retries.
	c := env.client(func(c *Config) { c.MaxRetries = 10 })
	ctx := env.ctx
	for i := range 200 {
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/f.sib", Alias: fmt.Sprintf("fault-%03d", i)})
		if err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		if s.Alias != fmt.Sprintf("fault-%03d", i) {
			t.Fatalf("publish %d: alias %q", i, s.Alias)
		}
	}
	if n := env.stats().Scores; n != 200 {
		t.Errorf("%d scores exist, want 200", n)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{}); err != nil || n != 200 {
		t.Errorf("count %d %v", n, err)
	}
	// 502 is not retried for a publish without an alias, but is for a read.
	env.emu.SetFaults(emulator.Faults{FailRate: 1, Status: 502})
	_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/g.sib"})
	if !IsUnknownOutcome(err) || !strings.Contains(err.Error(), "may have been created") {
		t.Errorf("publish after 502: %v", err)
	}
	before := env.stats().Requests["GET "+routeScoreByID]
	if _, err := c.GetScore(ctx, "fault-000"); statusOf(err) != 502 {
		t.Errorf("read after 502s: %v", err)
	}
	if n := env.stats().Requests["GET "+routeScoreByID] - before; n != 11 {
		t.Errorf("read attempts %d, want 11", n)
	}
	env.emu.SetFaults(emulator.Faults{})
}

// TestPublishRecoveryAdoptsOnlyWhatThisRunCreated: after a lost answer, a score under
// the alias created before the publish was sent belongs to someone else (a conflict,
// as the 409 would have said); without an alias, several new scores of the address
// are an error listing them.
func TestPublishRecoveryAdoptsOnlyWhatThisRunCreated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("alias held by an older score of the same address", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, _ *http.Request) {
			writeProblem(w, http.StatusBadGateway, "", "bad gateway")
		})
		f.handle("GET "+routeScores+"/shared", func(w http.ResponseWriter, _ *http.Request) {
			s := scoreJSON("theirs", "https://cdn/a.sib", "shared", "idle")
			s["createdAt"] = time.Now().Add(-5 * time.Second).UTC().Format(time.RFC3339Nano)
			writeJSON(w, map[string]any{"score": s})
		})
		c := newTestClient(t, f.config())
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "shared"})
		if !IsConflict(err) || !strings.Contains(err.Error(), "before this publish was sent") {
			t.Fatalf("got %+v, %v; want a conflict", s, err)
		}
	})

	// A score under the alias created since the publish was sent, of the same address
	// but with other options, is not this publish's: adopting it would give the state
	// a transpose the score does not have.
	t.Run("alias held by a new score with other options", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, _ *http.Request) { dropConnection(w) })
		f.handle("GET "+routeScores+"/transposed", func(w http.ResponseWriter, _ *http.Request) {
			s := freshScoreJSON("other", "transposed", "idle")
			s["options"] = map[string]any{"transpose": true}
			writeJSON(w, map[string]any{"score": s})
		})
		c := newTestClient(t, f.config())
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "transposed"})
		if !IsConflict(err) || !strings.Contains(err.Error(), "other options") {
			t.Fatalf("got %+v, %v; want a conflict naming the options", s, err)
		}
	})

	t.Run("several new scores of the address", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, _ *http.Request) { dropConnection(w) })
		f.handle("GET "+routeScores, func(w http.ResponseWriter, r *http.Request) {
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			if body["offset"] != nil {
				writeJSON(w, map[string]any{"scores": []any{}})
				return
			}
			old := scoreJSON("old", "https://cdn/a.sib", "", "idle")
			writeJSON(w, map[string]any{"scores": []any{old,
				freshScoreJSON("new-1", "", "idle"), freshScoreJSON("new-2", "", "idle")}})
		})
		c := newTestClient(t, f.config())
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib"})
		var ambiguous *AmbiguousPublishError
		if !errors.As(err, &ambiguous) || strings.Join(ambiguous.IDs, ",") != "new-1,new-2" || !strings.Contains(err.Error(), "new-1, new-2") {
			t.Fatalf("got %v", err)
		}
		if n := f.count("POST " + routeScores); n != 1 {
			t.Errorf("%d publishes, want 1", n)
		}
	})
}

// TestMinimalPublishAnswer: a publish answered with the new score's id alone (field
// report 4) is read back, so that the state gets the score's scoreUrl, alias and
// status; the fallback is logged once at WARN.
func TestMinimalPublishAnswer(t *testing.T) {
	t.Parallel()
	env, _ := readingEnv(t, "minimalPublishAnswer")
	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	c := env.client()
	for i := range 2 {
		alias := "minimal-" + string(rune('a'+i))
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/" + alias + ".sib", Alias: alias})
		if err != nil || s.ScoreURL != "https://cdn.example/"+alias+".sib" || s.Alias != alias || s.Status == "" || s.CreatedAt.IsZero() {
			t.Fatalf("publish answered with its id alone: %+v, %v", s, err)
		}
	}
	if n := strings.Count(logs.String(), `"@level":"warn"`); n != 1 {
		t.Errorf("%d WARN lines for the read-back, want 1:\n%s", n, logs.String())
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

func TestPublishWithUnknownOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// Without an alias, a lost answer is followed by a look for the score by its
	// scoreUrl, in a listing read again until the publish is ListingLagBound old on the
	// client's clock (a listing may lag); a score not found leaves the outcome unknown,
	// and the publish is never sent again on the listing's word. Before, it was sent
	// again max_retries times, one listing each.
	t.Run("no alias, nothing listed", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) { dropConnection(w) })
		cfg := f.config()
		cfg.MaxRetries = 2
		clk := newFakeClock(time.Now())
		cfg.clock = clk
		c := newTestClient(t, cfg)
		start := clk.Now()
		done := make(chan error, 1)
		go func() {
			_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib"})
			done <- err
		}()
		var err error
		for waited := false; !waited; {
			select {
			case err = <-done:
				waited = true
			case <-time.After(10 * time.Millisecond):
				clk.Wake() // the look-up's pauses pass on the client's clock only
			}
		}
		var u *UnknownOutcomeError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "score may have been created") ||
			!strings.Contains(err.Error(), "was not sent again") {
			t.Fatalf("got %v, want an unknown outcome, not sent again", err)
		}
		if p, l := f.count("POST "+routeScores), f.count("GET "+routeScores); p != 1 || l < 2 {
			t.Errorf("POST %d, list %d, want 1 and at least 2 (the listing read again within the bound)", p, l)
		}
		if d := clk.Now().Sub(start); d < ListingLagBound {
			t.Errorf("the look-up ended %s after the publish on the client's clock, before ListingLagBound (%s)", d, ListingLagBound)
		}
	})

	t.Run("alias created then dropped", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		var created atomic.Bool
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) {
			if created.Swap(true) {
				writeProblem(w, 409, "publishing/CONFLICT", "alias taken")
				return
			}
			dropConnection(w)
		})
		f.handle("GET "+routeScores+"/my-alias", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, map[string]any{"score": freshScoreJSON("id-1", "my-alias", "pending")})
		})
		c := newTestClient(t, f.config())
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "my-alias"})
		if err != nil || s.ID != "id-1" || s.Alias != "my-alias" {
			t.Fatalf("got %+v, %v", s, err)
		}
		if p, g := f.count("POST "+routeScores), f.count("GET "+routeScores+"/my-alias"); p != 1 || g != 1 {
			t.Errorf("POST %d GET %d, want 1 and 1", p, g)
		}
	})

	t.Run("alias lost then published", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		var posts atomic.Int32
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) {
			if posts.Add(1) == 1 {
				dropConnection(w)
				return
			}
			writeJSON(w, map[string]any{"score": scoreJSON("id-2", "https://cdn/a.sib", "b", "pending")})
		})
		c := newTestClient(t, f.config())
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "b"})
		if err != nil || s.ID != "id-2" {
			t.Fatalf("got %+v, %v", s, err)
		}
		if p, g := f.count("POST "+routeScores), f.count("GET "+routeScores+"/b"); p != 2 || g != 1 {
			t.Errorf("POST %d GET %d, want 2 and 1", p, g)
		}
	})

	t.Run("alias held by another score", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) { dropConnection(w) })
		f.handle("GET "+routeScores+"/c", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, map[string]any{"score": scoreJSON("id-3", "https://cdn/OTHER.sib", "c", "idle")})
		})
		c := newTestClient(t, f.config())
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "c"})
		if !IsConflict(err) {
			t.Fatalf("got %v, want a conflict", err)
		}
	})

	t.Run("clean conflict is not success", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, 409, "publishing/CONFLICT", "alias taken")
		})
		c := newTestClient(t, f.config())
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "d"})
		if !IsConflict(err) || f.count("GET "+routeScores+"/d") != 0 {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("attempt timeout with alias", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		// The answer comes only once the client has given up on it (its attempt's
		// time limit), whatever the machine's speed; the limit is long enough for the
		// token flow's requests on a loaded machine (at 150 ms, two GET /auth once timed
		// out beside a full race-enabled suite).
		const timeout = 2 * time.Second
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * timeout):
			}
			writeJSON(w, map[string]any{"score": scoreJSON("id-4", "https://cdn/a.sib", "e", "pending")})
		})
		f.handle("GET "+routeScores+"/e", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, map[string]any{"score": freshScoreJSON("id-4", "e", "pending")})
		})
		cfg := f.config()
		cfg.RequestTimeout = timeout
		c := newTestClient(t, cfg)
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "e"})
		if err != nil || s.ID != "id-4" || f.count("POST "+routeScores) != 1 || f.count("GET "+routeScores+"/e") == 0 {
			t.Fatalf("got %+v, %v after %d POSTs", s, err, f.count("POST "+routeScores))
		}
	})
}
