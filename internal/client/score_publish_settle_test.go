package client

// Settling a publish that its context cut while its outcome was unknown (an interrupt
// at the provider's stop bound).

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// settleEnv is an emulator behind a fault proxy, with a client that goes through it.
func settleEnv(t *testing.T) (*emuEnv, *faultproxy.Proxy, *Client) {
	t.Helper()
	env := newEmuEnv(t, emulator.Options{})
	p := faultproxy.Start(env.srv.URL)
	t.Cleanup(p.Close)
	c := env.client(func(cfg *Config) {
		cfg.AdminURL = env.emu.AdminURL(p.URL)
		cfg.PlatformURL = env.emu.PlatformURL(p.URL)
	})
	return env, p, c
}

// cutPublish publishes in with a context cancelled once until() holds, and returns
// the publish's error.
func cutPublish(t *testing.T, env *emuEnv, c *Client, in PublishScoreInput, until func() bool) error {
	t.Helper()
	ctx, cancel := context.WithCancel(env.ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.PublishScore(ctx, in)
		done <- err
	}()
	for deadline := time.Now().Add(time.Minute); !until(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the publish did not get where the test cuts it within a minute")
		}
	}
	cancel()
	return <-done
}

// TestSettlePublish: a publish cut by its context while its answer is held, after the
// platform acted, returns a *PublishCutError that is still an unknown outcome, and
// SettlePublish finds the score it created, by alias or by score URL, without a
// second publish. A publish cut before it reached the platform is not settled: the
// look-up of a score without an alias leaves the outcome unknown when its context
// ends, and the error says so.
func TestSettlePublish(t *testing.T) {
	t.Parallel()
	for _, alias := range []string{"", "settled"} {
		t.Run("created, alias "+strconv.Quote(alias), func(t *testing.T) {
			t.Parallel()
			env, p, c := settleEnv(t)
			release := make(chan struct{})
			defer close(release)
			p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Hold: release})
			err := cutPublish(t, env, c, PublishScoreInput{ScoreURL: "https://cdn.example/settle.sib", Alias: alias},
				func() bool { return env.stats().Scores == 1 })
			var cut *PublishCutError
			if !errors.As(err, &cut) || !IsUnknownOutcome(err) {
				t.Fatalf("the cut publish: %v, want a *PublishCutError that is an unknown outcome", err)
			}
			ctx, stop := context.WithTimeout(env.ctx, time.Minute)
			defer stop()
			s, err := c.SettlePublish(ctx, err)
			if err != nil || s == nil || s.Recovered == "" {
				t.Fatalf("settling: %+v, %v; want the recovered score", s, err)
			}
			if n, posts := env.stats().Scores, p.Count(http.MethodPost, `/scores$`); n != 1 || posts != 1 {
				t.Errorf("%d scores on the platform after %d publishes, want 1 and 1", n, posts)
			}
		})
	}
	t.Run("not created, no alias", func(t *testing.T) {
		t.Parallel()
		env, p, c := settleEnv(t)
		p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Latency: time.Hour}) // never forwarded
		err := cutPublish(t, env, c, PublishScoreInput{ScoreURL: "https://cdn.example/never.sib"},
			func() bool { return p.Count(http.MethodPost, `/scores$`) == 1 })
		ctx, stop := context.WithTimeout(env.ctx, 300*time.Millisecond)
		defer stop()
		s, err := c.SettlePublish(ctx, err)
		if s != nil || !IsUnknownOutcome(err) {
			t.Fatalf("settling a publish that never reached the platform: %+v, %v; want an unknown outcome", s, err)
		}
		if n := env.stats().Scores; n != 0 {
			t.Errorf("%d scores on the platform, want 0", n)
		}
	})
	t.Run("another error", func(t *testing.T) {
		t.Parallel()
		c := newTestClient(t, Config{})
		other := errors.New("not a cut publish")
		if s, err := c.SettlePublish(t.Context(), other); s != nil || !errors.Is(err, other) {
			t.Errorf("SettlePublish of another error: %+v, %v; want it returned as it is", s, err)
		}
	})
}

// TestSettleUnsettled settles, as a later run does, a publish an earlier run left
// unsettled (SettleUnsettled), by the rule of a lost answer: each case publishes what
// the platform holds, then settles a publish of in sent at sent (relative to the
// platform's clock when the case begins).
func TestSettleUnsettled(t *testing.T) {
	t.Parallel()
	const addr, other = "https://cdn.example/unsettled.sib", "https://cdn.example/other.sib"
	type held struct {
		in    PublishScoreInput
		after bool // published after the unsettled publish was sent (else before)
	}
	for _, tc := range []struct {
		name  string
		in    PublishScoreInput
		held  []held
		ago   time.Duration // how long before the case the publish was sent
		stall bool          // the look-ups are never answered
		want  string        // "found", "none", "unknown", "ambiguous"
	}{
		{"alias, published", PublishScoreInput{ScoreURL: addr, Alias: "u1"}, []held{{PublishScoreInput{ScoreURL: addr, Alias: "u1"}, true}}, 0, false, "found"},
		{"alias, not published", PublishScoreInput{ScoreURL: addr, Alias: "u1"}, nil, 0, false, "none"},
		{"alias, older holder", PublishScoreInput{ScoreURL: addr, Alias: "u1"}, []held{{PublishScoreInput{ScoreURL: addr, Alias: "u1"}, false}}, 0, false, "none"},
		{"alias, other address", PublishScoreInput{ScoreURL: addr, Alias: "u1"}, []held{{PublishScoreInput{ScoreURL: other, Alias: "u1"}, true}}, 0, false, "none"},
		{"alias, other options", PublishScoreInput{ScoreURL: addr, Alias: "u1"}, []held{{PublishScoreInput{ScoreURL: addr, Alias: "u1", Transpose: true}, true}}, 0, false, "none"},
		{"alias, look-up stalled", PublishScoreInput{ScoreURL: addr, Alias: "u1"}, []held{{PublishScoreInput{ScoreURL: addr, Alias: "u1"}, true}}, 0, true, "unknown"},
		{"no alias, published", PublishScoreInput{ScoreURL: addr}, []held{{PublishScoreInput{ScoreURL: addr}, true}, {PublishScoreInput{ScoreURL: addr}, false}}, 0, false, "found"},
		{"no alias, none, listing's lag past", PublishScoreInput{ScoreURL: addr}, []held{{PublishScoreInput{ScoreURL: other}, true}}, time.Minute, false, "none"},
		{"no alias, none, within the listing's lag", PublishScoreInput{ScoreURL: addr}, nil, 0, false, "none"}, // read again once past it
		// The platform's clock stepped back an hour since: the publish looks an hour
		// ahead, and the wait for the listing's lag is still at most the lag.
		{"no alias, none, the platform's clock stepped back", PublishScoreInput{ScoreURL: addr}, nil, -time.Hour, false, "none"},
		{"no alias, look-up stalled", PublishScoreInput{ScoreURL: addr}, []held{{PublishScoreInput{ScoreURL: addr}, true}}, 0, true, "unknown"},
		{"no alias, two", PublishScoreInput{ScoreURL: addr}, []held{{PublishScoreInput{ScoreURL: addr}, true}, {PublishScoreInput{ScoreURL: addr}, true}}, 0, false, "ambiguous"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, p, c := settleEnv(t)
			publish := func(in PublishScoreInput) {
				if _, err := c.PublishScore(env.ctx, in); err != nil {
					t.Fatalf("publishing %+v: %v", in, err)
				}
			}
			for _, h := range tc.held {
				if !h.after {
					publish(h.in)
				}
			}
			// Past the clock's tolerance: the platform's Date is to the second.
			time.Sleep(ClockTolerance + 1100*time.Millisecond)
			now, _ := c.PlatformTime(time.Now())
			sent := now.Add(-tc.ago)
			if tc.ago == 0 {
				sent = now
			}
			for _, h := range tc.held {
				if h.after {
					publish(h.in)
				}
			}
			if tc.stall {
				p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores`, Latency: time.Hour})
			}
			ctx, stop := context.WithTimeout(env.ctx, time.Minute) // far past the lag bound: a wait of hours fails
			defer stop()
			// A later run: another client, with no memory of this one.
			cfg := c.cfg
			if tc.stall {
				cfg.RequestTimeout, cfg.MaxRetries = 300*time.Millisecond, 0
			}
			later, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			s, err := later.SettleUnsettled(ctx, UnsettledPublish{Input: tc.in, Sent: sent})
			var ambiguous *AmbiguousPublishError
			got := "unknown"
			switch {
			case err == nil && s != nil:
				got = "found"
			case err == nil:
				got = "none"
			case errors.As(err, &ambiguous):
				got = "ambiguous"
			}
			if got != tc.want {
				t.Errorf("settled: %s (%+v, %v), want %s", got, s, err, tc.want)
			}
		})
	}
}
