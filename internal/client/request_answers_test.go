package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestHTMLAnswerIsNoSuccess: a 200 HTML page to a read is an error that leads with
// what answered and names the setting; to a DELETE it deletes nothing from the
// caller's view until the platform itself says the score is gone.
func TestHTMLAnswerIsNoSuccess(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/waf.sib"})
	if err != nil {
		t.Fatal(err)
	}

	p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Respond: blockedPage, Times: 1})
	_, err = c.GetScore(env.ctx, s.ID)
	var foreign *ForeignAnswerError
	// publishing_url is unset: the address is derived from admin_url, which is named.
	if !errors.As(err, &foreign) || foreign.Setting != "admin_url" ||
		!strings.Contains(err.Error(), "answered HTTP 200 with an HTML page, not the platform's JSON") ||
		strings.Contains(err.Error(), "invalid character") {
		t.Fatalf("GET answered with an HTML page: %v", err)
	}

	// A WAF that blocks DELETE with a 200 page: the score is still there, so the delete fails.
	waf := p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/scores/`, Respond: blockedPage})
	err = c.DeleteScore(env.ctx, s.ID, false)
	if !errors.As(err, &foreign) || !strings.Contains(err.Error(), "still exists") {
		t.Fatalf("DELETE answered with an HTML page: %v", err)
	}
	if n := env.stats().Scores; n != 1 {
		t.Fatalf("%d scores after a blocked delete, want 1", n)
	}
	if p.Hits(waf) != 1 {
		t.Errorf("the blocked DELETE was sent %d times, want 1", p.Hits(waf))
	}

	// A DELETE that took effect but whose answer a front end replaced: confirmed gone.
	p.Clear()
	p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/scores/`, Body: faultproxy.Replace("<html>ok</html>")})
	if err := c.DeleteScore(env.ctx, s.ID, false); err != nil {
		t.Fatalf("DELETE that took effect behind an HTML answer: %v", err)
	}
	if n := env.stats().Scores; n != 0 {
		t.Errorf("%d scores, want 0", n)
	}
}

// TestUnreadableAnswersQuoteNothing: an answer that is not JSON is described, never
// quoted (a login or token answer holds a secret).
func TestUnreadableAnswersQuoteNothing(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle(routeGrant, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`Fsecret-token-bytes`))
	})
	c := newTestClient(t, f.config())
	_, err := c.ListScores(context.Background(), ListScoresInput{})
	if err == nil || strings.Contains(err.Error(), "secret-token") || strings.Contains(err.Error(), "'F'") ||
		!strings.Contains(err.Error(), "not valid JSON (at byte 1)") {
		t.Fatalf("got %v", err)
	}
}

// TestBareBodies: every score endpoint answered without its wrapper (the score, the
// view, the list as an array, the count as a number) reads as the contract's form.
func TestBareBodies(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "bareBodies", "bareCount", "deleteAnswersScore")
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/bare.sib", Alias: "bare"})
	if err != nil || s.ScoreURL == "" || s.Alias != "bare" {
		t.Fatalf("publish: %+v, %v", s, err)
	}
	if got, err := c.GetScore(env.ctx, "bare"); err != nil || got.ID != s.ID {
		t.Fatalf("get: %+v, %v", got, err)
	}
	if list, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0); err != nil || len(list) != 1 || list[0].ID != s.ID {
		t.Fatalf("list: %v, %v", list, err)
	}
	// A criterion the score keeps: its status moves on while the test runs (on a slow
	// machine it had left pending by the count, which then found none).
	if n, err := c.CountScores(env.ctx, CountScoresInput{Criteria: ScoreCriteria{ScoreURL: s.ScoreURL}}); err != nil || n != 1 {
		t.Fatalf("count: %d, %v", n, err)
	}
	if v, err := c.CreateView(env.ctx, "bare", ViewInput{}); err != nil || v.ViewerURL == "" {
		t.Fatalf("view: %+v, %v", v, err)
	}
	if err := c.DeleteScore(env.ctx, "bare", false); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.GetScore(env.ctx, "bare"); !IsNotFound(err) {
		t.Fatalf("after the delete: %v", err)
	}
}

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
