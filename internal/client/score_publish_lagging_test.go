package client

// Publish recovery on a platform whose reads lag its writes.

import (
	"testing"
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
