package client

// The fuzz targets of scores.go: one score and a list of scores, read as the pipeline
// reads a 2xx answer (decodeAnswer into the type GetScore, PublishScore and
// ListScores decode into), in every wrapper form.

import (
	"encoding/json"
	"testing"
)

// FuzzScoreAnswer fuzzes the answer of one score ({"score": …} or the score bare). A
// score it reads is read the same once more from the bytes it kept (Raw), wrapped.
func FuzzScoreAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindScore) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var out *Score
		var err error
		within(t, "decoding a score", body, func() {
			err = decodeAnswer(body, "score", &out)
			if out != nil {
				_ = out.PageCount()
			}
		})
		if err != nil || out == nil {
			return
		}
		checkScoreRereads(t, out)
	})
}

// FuzzScoreListAnswer fuzzes a page of scores: {"scores": […]}, the envelope with
// total, offset, limit and _links, a bare array, {} for an empty page.
func FuzzScoreListAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindScores) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var out []*Score
		var err error
		within(t, "decoding a list of scores", body, func() { err = decodeAnswer(body, "scores", &out) })
		if err != nil {
			return
		}
		for _, s := range out {
			if s != nil {
				checkScoreRereads(t, s)
			}
		}
	})
}

// checkScoreRereads checks that s is read the same from the bytes it kept, wrapped as
// the contract wraps a score.
func checkScoreRereads(t *testing.T, s *Score) {
	t.Helper()
	if !json.Valid(s.Raw) {
		t.Fatalf("the score kept bytes that are not JSON: %q", s.Raw)
	}
	wrapped := append(append([]byte(`{"score":`), s.Raw...), '}')
	var again *Score
	if err := decodeAnswer(wrapped, "score", &again); err != nil || again == nil {
		t.Fatalf("the score's own bytes, wrapped, do not read again: %v", err)
	}
	if again.ID != s.ID || again.Alias != s.Alias || again.Status != s.Status || again.ScoreURL != s.ScoreURL ||
		!again.CreatedAt.Equal(s.CreatedAt) || !again.UpdatedAt.Equal(s.UpdatedAt) || again.PageCount() != s.PageCount() {
		t.Fatalf("the score reads differently from its own bytes: %+v, then %+v", s, again)
	}
}
