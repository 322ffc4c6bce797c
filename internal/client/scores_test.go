package client

// The score publishing calls: an unknown outcome, paging, waiting for rendering.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func TestPublishWithUnknownOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// Without an alias, every lost answer is followed by a look for the score by its
	// scoreUrl; when none was created, the publish is sent again, max_retries times.
	t.Run("no alias, nothing created", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) { dropConnection(w) })
		cfg := f.config()
		cfg.MaxRetries = 2
		c := newTestClient(t, cfg)
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib"})
		var u *UnknownOutcomeError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "score may have been created") {
			t.Fatalf("got %v", err)
		}
		if p, l := f.count("POST "+routeScores), f.count("GET "+routeScores); p != 3 || l != 3 {
			t.Errorf("POST %d, list %d, want 3 and 3", p, l)
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
			writeJSON(w, 200, map[string]any{"score": freshScoreJSON("id-1", "my-alias", "pending")})
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
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-2", "https://cdn/a.sib", "b", "pending")})
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
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-3", "https://cdn/OTHER.sib", "c", "idle")})
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
		f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(400 * time.Millisecond) // longer than RequestTimeout
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-4", "https://cdn/a.sib", "e", "pending")})
		})
		f.handle("GET "+routeScores+"/e", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"score": freshScoreJSON("id-4", "e", "pending")})
		})
		cfg := f.config()
		cfg.RequestTimeout = 150 * time.Millisecond
		c := newTestClient(t, cfg)
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "e"})
		if err != nil || s.ID != "id-4" || f.count("POST "+routeScores) != 1 {
			t.Fatalf("got %+v, %v after %d POSTs", s, err, f.count("POST "+routeScores))
		}
	})
}

func TestAllScoresPaging(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	const total = 250
	var mu sync.Mutex
	var limits []string
	f.handle("GET "+routeScores, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		off, _ := strconv.Atoi(q.Get("offset"))
		lim, _ := strconv.Atoi(q.Get("limit"))
		mu.Lock()
		limits = append(limits, q.Get("offset")+"/"+q.Get("limit"))
		mu.Unlock()
		var page []any
		for i := off; i < min(total, off+lim); i++ {
			page = append(page, scoreJSON(fmt.Sprintf("id-%03d", i), "https://x/s", "", "idle"))
		}
		writeJSON(w, 200, map[string]any{"scores": page})
	})
	c := newTestClient(t, f.config())
	ctx := context.Background()
	all, err := c.ListAllScores(ctx, ScoreCriteria{}, 0, 0)
	if err != nil || len(all) != total || all[249].ID != "id-249" {
		t.Fatalf("got %d scores, %v", len(all), err)
	}
	if n := f.count("GET " + routeScores); n != 3 {
		t.Errorf("list requests %d, want 3 (%v)", n, limits)
	}
	some, err := c.ListAllScores(ctx, ScoreCriteria{}, 10, 120)
	if err != nil || len(some) != 120 || some[0].ID != "id-010" {
		t.Fatalf("got %d scores, %v", len(some), err)
	}
	if n := f.count("GET " + routeScores); n != 5 {
		t.Errorf("list requests %d, want 5 (%v)", n, limits)
	}
	// Stopping early makes no further request.
	for s, err := range c.AllScores(ctx, ScoreCriteria{}, 0, 0) {
		if err != nil || s.ID != "id-000" {
			t.Fatal(s, err)
		}
		break
	}
	if n := f.count("GET " + routeScores); n != 6 {
		t.Errorf("list requests %d, want 6", n)
	}
}

func TestWaitForRendering(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	var n atomic.Int32
	f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		status := []string{"pending", "rendering", "idle"}[min(int(n.Add(1))-1, 2)]
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", status)})
	})
	c := newTestClient(t, f.config())
	s, err := c.WaitForRendering(context.Background(), "s1")
	if err != nil || s.Status != ScoreStatusIdle || n.Load() != 3 {
		t.Fatalf("got %+v %v after %d polls", s, err, n.Load())
	}
	f.handle("GET "+routeScores+"/s2", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s2", "https://x/s", "", "pending")})
	})
	// Generous: the first read must come back before the deadline on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s, err = c.WaitForRendering(ctx, "s2")
	if !errors.Is(err, context.DeadlineExceeded) || s == nil || s.Status != "pending" {
		t.Fatalf("timeout: %+v %v", s, err)
	}
}
