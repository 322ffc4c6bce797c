package client

// The rules of the reading table (docs/development/platform-readings.md, "Rules"),
// each tried on the readings of issue 36 that broke it.

import (
	"testing"
)

// TestEmptyAnswersAreZero: a platform that leaves out members holding their zero
// value answers an empty page, a count of 0 and a filter matching nothing as {}
// (rule "absent means zero"; it failed with "a JSON object where the API answers
// with another type").
func TestEmptyAnswersAreZero(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "omitEmptyScoreMembers")
	all, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
	if err != nil || len(all) != 0 {
		t.Fatalf("the list of no scores: %d scores, %v", len(all), err)
	}
	if n, err := c.CountScores(env.ctx, CountScoresInput{}); err != nil || n != 0 {
		t.Fatalf("the count of no scores: %d, %v", n, err)
	}
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/zero.sib"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Transpose || s.Alias != "" || s.PageCount() != 0 {
		t.Errorf("the published score: %+v", s)
	}
	none := ScoreCriteria{ScoreURL: "https://cdn.example/nothing.sib"}
	if page, err := c.ListScores(env.ctx, ListScoresInput{Criteria: none}); err != nil || len(page) != 0 {
		t.Errorf("a filter matching nothing: %d scores, %v", len(page), err)
	}
	if n, err := c.CountScores(env.ctx, CountScoresInput{Criteria: none}); err != nil || n != 0 {
		t.Errorf("the count of a filter matching nothing: %d, %v", n, err)
	}
	if page, err := c.ListScores(env.ctx, ListScoresInput{Offset: 5}); err != nil || len(page) != 0 {
		t.Errorf("a page past the end: %d scores, %v", len(page), err)
	}
	if all, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0); err != nil || len(all) != 1 {
		t.Errorf("the list of one score: %d scores, %v", len(all), err)
	}
}
