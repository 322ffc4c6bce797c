package client

// Publish recovery on a platform whose reads lag its writes.

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestPublishLostAnswerLaggingReads: a publish whose answer is lost, on a platform
// whose reads lag, finds the score it created instead of publishing it again. With an
// alias, the 409 for an alias the read did not find shows the lag; without one, the
// lag seen earlier in the process does. Before, the aliased publish failed on its own
// alias, and the unaliased one published its score twice.
func TestPublishLostAnswerLaggingReads(t *testing.T) {
	t.Parallel()
	t.Run("aliased", func(t *testing.T) {
		t.Parallel()
		env, c, loseNext := lostPublishEnv(t)
		loseNext()
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/lost.sib", Alias: "lost"})
		if err != nil {
			t.Fatalf("the publish whose answer was lost: %v", err)
		}
		if s.Recovered == "" || env.stats().Scores != 1 {
			t.Errorf("the publish returned score %s (recovered: %q) and the platform holds %d scores, want the recovered "+
				"score alone", s.ID, s.Recovered, env.stats().Scores)
		}
	})
	t.Run("unaliased, after a lagging read", func(t *testing.T) {
		t.Parallel()
		env, c, loseNext := lostPublishEnv(t)
		// The platform shows its lag to a refresh first.
		first, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/first.sib"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err = c.RefreshRecordedScore(env.ctx, first.ID, first.CreatedAt); err != nil {
			t.Fatal(err)
		}
		loseNext()
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/lost.sib"})
		if err != nil {
			t.Fatalf("the publish whose answer was lost: %v", err)
		}
		if n := env.stats().Scores; s.Recovered == "" || n != 2 {
			t.Errorf("the publish returned score %s (recovered: %q) and the platform holds %d scores, want the recovered "+
				"score and the one before", s.ID, s.Recovered, n)
		}
	})
}

// TestPublishLostAnswerLaggingIndex: a publish whose answer is lost after the platform
// acted, on a platform whose listing is a search index refreshed every second while
// its GET by id is real-time (so it never shows lagging reads), finds the score it
// created instead of publishing a second copy, with an alias and without. Before, the
// publish without an alias found nothing in the index and was sent again: two scores.
func TestPublishLostAnswerLaggingIndex(t *testing.T) {
	t.Parallel()
	for _, alias := range []string{"", "indexed"} {
		t.Run("alias "+strconv.Quote(alias), func(t *testing.T) {
			t.Parallel()
			env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{IndexRefreshMs: 1000}})
			p := faultproxy.Start(env.srv.URL)
			t.Cleanup(p.Close)
			c := env.client(func(cfg *Config) {
				cfg.AdminURL = env.emu.AdminURL(p.URL)
				cfg.PlatformURL = env.emu.PlatformURL(p.URL)
			})
			p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Drop: true, Times: 1})
			s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/indexed.sib", Alias: alias})
			if err != nil {
				t.Fatalf("the publish whose answer was lost: %v", err)
			}
			if n := env.stats().Scores; s.Recovered == "" || n != 1 {
				t.Errorf("the publish returned score %s (recovered: %q) and the platform holds %d scores, want the "+
					"recovered score alone", s.ID, s.Recovered, n)
			}
			if posts := p.Count(http.MethodPost, `/scores$`); posts != 1 {
				t.Errorf("%d publishes sent, want 1", posts)
			}
		})
	}
}

// TestPublishLostAnswerSummaryListing: a lost publish of a transposed score, without
// an alias, on a platform that lists scores as summaries (no options): the listing
// cannot say the score is transposed, so the recovery reads it whole and adopts it,
// rather than leaving the outcome unknown. Before the recovery read summaries whole,
// the publish failed with "the listing of this scoreUrl … held no score created since".
func TestPublishLostAnswerSummaryListing(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: emulator.Readings{SummaryListings: true}}})
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Drop: true, Times: 1})
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/summary.sib", Transpose: true})
	if err != nil {
		t.Fatalf("the publish whose answer was lost: %v", err)
	}
	if n := env.stats().Scores; s.Recovered == "" || !s.Transpose || n != 1 {
		t.Errorf("the publish returned score %s (recovered: %q, transpose %t) and the platform holds %d scores, want "+
			"the recovered transposed score alone", s.ID, s.Recovered, s.Transpose, n)
	}
	if posts := p.Count(http.MethodPost, `/scores$`); posts != 1 {
		t.Errorf("%d publishes sent, want 1", posts)
	}
}
