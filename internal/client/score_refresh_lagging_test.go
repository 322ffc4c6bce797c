package client

// Reads of a recorded score on a platform whose reads lag its writes.

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestRefreshRecordedScoreLaggingRead: a score whose reads lag its creation by 1.5 s is
// found by RefreshRecordedScore, which reads it again and says so at WARN; a few GETs,
// not a busy loop.
func TestRefreshRecordedScoreLaggingRead(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{LaggingReadsMs: 1500}})
	c := env.client()
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/lag.sib"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetScore(env.ctx, s.ID); !IsNotFound(err) {
		t.Fatalf("the emulator's reads do not lag: %v", err)
	}
	get := "GET " + env.emu.PublishingURL("") + "/scores/{id}"
	before := env.stats().Requests[get]
	got, err := c.RefreshRecordedScore(env.ctx, s.ID, s.CreatedAt)
	if err != nil || got.ID != s.ID {
		t.Fatalf("RefreshRecordedScore = %v, %v; want the score", got, err)
	}
	// 1.5 s of lag with pauses of 0.25, 0.5, 1 and 2 s: at most 5 GETs even if the
	// machine is slow.
	if n := env.stats().Requests[get] - before; n < 2 || n > 6 {
		t.Errorf("the refresh made %d GETs, want 2 to 6", n)
	}
	if !strings.Contains(env.logs.String(), "the platform's reads may lag its writes") {
		t.Errorf("no WARN said that the read was repeated:\n%s", env.logs.String())
	}
}

// TestRefreshRecordedScoreGone: a 404 for a score older than ReadLagWindow is taken at
// its word at once, one GET; and the wait on a young score ends with its context
// without reporting it gone.
func TestRefreshRecordedScoreGone(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/gone.sib"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteScore(env.ctx, s.ID, false); err != nil {
		t.Fatal(err)
	}
	get := "GET " + env.emu.PublishingURL("") + "/scores/{id}"
	before := env.stats().Requests[get]
	if _, err := c.RefreshRecordedScore(env.ctx, s.ID, s.CreatedAt.Add(-ReadLagWindow)); !IsNotFound(err) {
		t.Errorf("an old score's 404: %v, want NotFound", err)
	}
	if n := env.stats().Requests[get] - before; n != 1 {
		t.Errorf("an old score's 404 cost %d GETs, want 1", n)
	}

	ctx, cancel := context.WithTimeout(env.ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.RefreshRecordedScore(ctx, s.ID, s.CreatedAt)
	if err == nil || IsNotFound(err) {
		t.Errorf("an interrupted wait on a young score: %v, want an error that is not NotFound", err)
	}
	if took := time.Since(start); took > ReadLagWindow/2 {
		t.Errorf("the interrupted wait took %s", took)
	}
}

// lostPublishEnv is an emulator whose reads lag 1.5 s behind a client, and a function
// that makes the next publish lose its answer after taking effect (a proxy drops it).
func lostPublishEnv(t *testing.T) (*emuEnv, *Client, func()) {
	t.Helper()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{LaggingReadsMs: 1500}})
	p := faultproxy.Start(env.srv.URL)
	t.Cleanup(p.Close)
	c := env.client(func(cfg *Config) {
		cfg.AdminURL = env.emu.AdminURL(p.URL)
		cfg.PlatformURL = env.emu.PlatformURL(p.URL)
	})
	return env, c, func() { p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Drop: true, Times: 1}) }
}

// TestRefreshRecordedScoreUntoldAge: a 404 for a score whose age cannot be told (its
// creation time ahead of the platform's clock, which stepped back; a platform whose
// answers carry no Date) costs one GET while the platform has shown no lagging reads.
// Before, each such read waited the whole ReadLagWindow, with a GET every 2 s: a plan
// of N such scores took N / parallelism × 10 s. Once the platform has shown lagging
// reads, such a score is read again.
func TestRefreshRecordedScoreUntoldAge(t *testing.T) {
	t.Parallel()
	gone := func(t *testing.T, env *emuEnv, c *Client) *Score {
		t.Helper()
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/untold.sib"})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteScore(env.ctx, s.ID, false); err != nil {
			t.Fatal(err)
		}
		return s
	}
	gets := func(env *emuEnv) int { return env.stats().Requests["GET "+env.emu.PublishingURL("")+"/scores/{id}"] }
	t.Run("created ahead of the platform's clock", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		c := env.client()
		s := gone(t, env, c)
		before := gets(env)
		if _, err := c.RefreshRecordedScore(env.ctx, s.ID, s.CreatedAt.Add(time.Minute)); !IsNotFound(err) {
			t.Errorf("the 404 of a score created ahead of the clock: %v, want NotFound", err)
		}
		if n := gets(env) - before; n != 1 {
			t.Errorf("the 404 of a score created ahead of the clock cost %d GETs, want 1", n)
		}
	})
	t.Run("platform clock unknown", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		p := faultproxy.Start(env.srv.URL)
		t.Cleanup(p.Close)
		// Answers without a Date (nil suppresses the one net/http would add).
		p.Add(faultproxy.Fault{Path: `.`, Header: func(h http.Header) { h["Date"] = nil }})
		c := env.client(func(cfg *Config) {
			cfg.AdminURL = env.emu.AdminURL(p.URL)
			cfg.PlatformURL = env.emu.PlatformURL(p.URL)
		})
		s := gone(t, env, c)
		if _, known := c.PlatformClockOffset(); known {
			t.Fatal("the platform's clock is known: the answers carried a Date")
		}
		before := gets(env)
		if _, err := c.RefreshRecordedScore(env.ctx, s.ID, s.CreatedAt); !IsNotFound(err) {
			t.Errorf("the 404 of a score on an unknown clock: %v, want NotFound", err)
		}
		if n := gets(env) - before; n != 1 {
			t.Errorf("the 404 of a score on an unknown clock cost %d GETs, want 1", n)
		}
	})
	t.Run("after lagging reads", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{LaggingReadsMs: 1500}})
		c := env.client()
		first, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/first.sib"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RefreshRecordedScore(env.ctx, first.ID, first.CreatedAt); err != nil || !c.lagShown() {
			t.Fatalf("the platform did not show its lag: %v", err)
		}
		s := gone(t, env, c)
		before := gets(env)
		ctx, cancel := context.WithTimeout(env.ctx, time.Second)
		defer cancel()
		if _, err := c.RefreshRecordedScore(ctx, s.ID, s.CreatedAt.Add(time.Minute)); err == nil || IsNotFound(err) {
			t.Errorf("the interrupted wait on a score created ahead of the clock: %v, want an error that is not NotFound", err)
		}
		if n := gets(env) - before; n < 2 {
			t.Errorf("on a platform whose reads lag, the 404 of a score created ahead of the clock cost %d GET, want it read again", n)
		}
	})
}

// TestReadScoreLaggingRead: a data source's read (ReadScore) of a score this process
// published moments ago, by alias and by UUID, reads a 404 again while the score is
// young, as RefreshRecordedScore does; a score this process knows nothing of, on a
// platform that has shown no lag, is absent after one GET.
func TestReadScoreLaggingRead(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{LaggingReadsMs: 1500}})
	c := env.client()
	get := "GET " + env.emu.PublishingURL("") + "/scores/{id}"
	before := env.stats().Requests[get]
	if _, err := c.ReadScore(env.ctx, "never-published"); !IsNotFound(err) {
		t.Fatalf("a score nobody published: %v, want NotFound", err)
	}
	if n := env.stats().Requests[get] - before; n != 1 {
		t.Errorf("a score nobody published cost %d GETs, want 1", n)
	}
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/lag-ds.sib", Alias: "lag-ds"})
	if err != nil {
		t.Fatal(err)
	}
	before = env.stats().Requests[get]
	for _, ref := range []string{"lag-ds", s.ID} {
		got, err := c.ReadScore(env.ctx, ref)
		if err != nil || got.ID != s.ID {
			t.Fatalf("ReadScore(%s) = %v, %v; want the score", ref, got, err)
		}
	}
	// 1.5 s of lag with pauses of 0.25, 0.5, 1 and 2 s, then one GET that finds it.
	if n := env.stats().Requests[get] - before; n < 3 || n > 7 {
		t.Errorf("the reads made %d GETs, want 3 to 7", n)
	}
	if !strings.Contains(env.logs.String(), "the platform's reads may lag its writes") {
		t.Errorf("no WARN said that the read was repeated:\n%s", env.logs.String())
	}
}
