package client

// The rules of the reading table (docs/development/platform-readings.md, "Rules"),
// each tried on the readings of issue 36 that broke it.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
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

// TestSpaceTimestamps: timestamps with a space instead of T (RFC 3339 §5.6 note) are
// read; a publish, a view and the token's removal link no longer fail on them (a
// publish ended as an unknown outcome, a view was reported failed, and every run left
// its token live).
func TestSpaceTimestamps(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "spaceTimestamps")
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/space.sib", Alias: "space"})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	if s.CreatedAt.IsZero() || s.Recovered != "" {
		t.Errorf("the published score: createdAt %v, recovered %q", s.CreatedAt, s.Recovered)
	}
	v, err := c.CreateView(env.ctx, s.ID, ViewInput{})
	if err != nil {
		t.Fatalf("view: %v", err)
	}
	if v.ExpiresAt.IsZero() {
		t.Errorf("the view's expiry was not read")
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 0 {
		t.Errorf("%d platform tokens live after Close, want 0", st.LiveTokens)
	}
}

// TestFlexTime: every form RFC 3339 allows, and anything else as absent (zero).
func TestFlexTime(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 23, 22, 45, 52, 123000000, time.UTC)
	for _, in := range []string{
		`"2026-11-23T22:45:52.123Z"`, `"2026-11-23 22:45:52.123000+00:00"`, `"2026-11-23t22:45:52.123z"`,
		`"2026-11-24T00:45:52.123+02:00"`, `"2026-11-24T00:45:52.123+0200"`, `"2026-11-24 00:45:52.123+02"`,
	} {
		var ft flexTime
		if err := json.Unmarshal([]byte(in), &ft); err != nil || !ft.Equal(want) {
			t.Errorf("%s: %v, %v; want %v", in, ft.Time, err, want)
		}
	}
	for _, in := range []string{`null`, `""`, `"yesterday"`, `1764024352`, `{}`} {
		var ft flexTime
		if err := json.Unmarshal([]byte(in), &ft); err != nil || !ft.IsZero() {
			t.Errorf("%s: %v, %v; want the zero time", in, ft.Time, err)
		}
	}
}

// TestTemplatedLinks: the token flow's links and command:cancel given as RFC 6570
// templates with an optional query expression are expanded with no variables (an
// apply with an ephemeral access token failed).
func TestTemplatedLinks(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "templatedLinks")
	tok, err := c.GrantAccessToken(env.ctx)
	if err != nil {
		t.Fatalf("grant: %v", err)
	}
	if tok, err = c.ExtendAccessToken(env.ctx, tok); err != nil {
		t.Fatalf("extend: %v", err)
	}
	if err := c.RemoveAccessToken(env.ctx, tok); err != nil {
		t.Fatalf("remove: %v", err)
	}
	id, err := env.emu.CreateCommand(emulator.CommandScript{Steps: []emulator.CommandStep{{Lifecycle: "suspended", Progress: 30}}})
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := c.GetCommand(env.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if canceled, err := c.CancelCommand(env.ctx, cmd); err != nil || canceled.Command.Error == nil || canceled.Command.Error.Cause != "canceled" {
		t.Errorf("cancel: %+v, %v", canceled, err)
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 0 {
		t.Errorf("%d platform tokens live, want 0", st.LiveTokens)
	}
}

// TestSeeOtherAfterWrite: a token extension and removal answered 303 See Other on the
// same host were carried out (contract §0 as amended): the removal no longer fails
// with "the platform redirected DELETE", the extension no longer counts as failed
// (which granted a new token and left the extended one live).
func TestSeeOtherAfterWrite(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "seeOtherWrites")
	tok, err := c.GrantAccessToken(env.ctx)
	if err != nil {
		t.Fatal(err)
	}
	extended, err := c.ExtendAccessToken(env.ctx, tok)
	if err != nil {
		t.Fatalf("extend: %v", err)
	}
	if extended.Token != tok.Token || !extended.ExpiresAt.After(time.Now()) {
		t.Errorf("the extended token: %+v", extended)
	}
	if err := c.RemoveAccessToken(env.ctx, extended); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if st := env.stats(); st.LiveTokens != 0 || st.Logins["oauth"] != 1 {
		t.Errorf("%d tokens live after %d grants, want 0 after 1", st.LiveTokens, st.Logins["oauth"])
	}
}

// TestSeeOtherIsSuccessOnlyForAWriteOnItsHost: a 303 is a write's success only on the
// host the write went to; to another host, or to a GET, it stays a redirect.
func TestSeeOtherIsSuccessOnlyForAWriteOnItsHost(t *testing.T) {
	t.Parallel()
	at, _ := url.Parse("https://platform.example/auth/tokens/current")
	for _, tc := range []struct {
		method, location string
		status           int
		want             bool
	}{
		{http.MethodDelete, "/auth", http.StatusSeeOther, true},
		{http.MethodPost, "https://PLATFORM.example:443/auth/tokens/current", http.StatusSeeOther, true},
		{http.MethodDelete, "https://elsewhere.example/auth", http.StatusSeeOther, false},
		{http.MethodDelete, "", http.StatusSeeOther, false},
		{http.MethodGet, "/auth", http.StatusSeeOther, false},
		{http.MethodDelete, "/auth", http.StatusFound, false},
	} {
		resp := &response{status: tc.status, header: http.Header{"Location": {tc.location}}, url: at}
		if got := seeOtherAfterWrite(&request{method: tc.method}, resp); got != tc.want {
			t.Errorf("%s answered %d to %q: success %v, want %v", tc.method, tc.status, tc.location, got, tc.want)
		}
	}
}

// TestDeleteAccepted: a delete answered 202 Accepted returns once the score is gone,
// so that publishing its alias again right after it does not meet a 409 (replacing
// an aliased score, destroy then apply).
func TestDeleteAccepted(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "deleteAccepted")
	in := PublishScoreInput{ScoreURL: "https://cdn.example/accepted.sib", Alias: "accepted"}
	s, err := c.PublishScore(env.ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteScore(env.ctx, s.ID, false); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := c.GetScore(env.ctx, s.ID); !IsNotFound(err) {
		t.Errorf("the score after its delete returned: %v, want not found", err)
	}
	in.ScoreURL = "https://cdn.example/accepted-2.sib"
	if _, err := c.PublishScore(env.ctx, in); err != nil {
		t.Errorf("publishing the alias again: %v", err)
	}

	// Within a timeout shorter than the platform takes, the delete says so.
	s2, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/accepted-3.sib"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(env.ctx, 300*time.Millisecond)
	defer cancel()
	if err := c.DeleteScore(ctx, s2.ID, false); err == nil || !strings.Contains(err.Error(), "accepted the delete") {
		t.Errorf("a delete not carried out within the timeout: %v", err)
	}
}

// TestGetCarriesNoBodyUnasked: behind a CDN that refuses any GET with a body (403), the
// list and the count work, and no 403 is taken for an expired token (an apply left 3
// tokens live and made 5 grants); on a platform that reads the parameters from a body
// only, a GET carries one once the platform has shown it ignores the query.
func TestGetCarriesNoBodyUnasked(t *testing.T) {
	t.Parallel()
	for _, readings := range [][]string{{"refuseGetBody"}, {"refuseGetBody", "countGetOnly"}, {"bodyParamsOnly"}, {"bodyParamsOnly", "countGetOnly"}} {
		t.Run(strings.Join(readings, "+"), func(t *testing.T) {
			t.Parallel()
			env, c := readingEnv(t, readings...)
			for i := range 7 {
				if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/g%d.sib", i)}); err != nil {
					t.Fatal(err)
				}
			}
			crit := ScoreCriteria{ScoreURL: "https://cdn.example/g3.sib"}
			if page, err := c.ListScores(env.ctx, ListScoresInput{Criteria: crit, Limit: 2}); err != nil || len(page) != 1 {
				t.Errorf("a filtered list: %d scores, %v", len(page), err)
			}
			if page, err := c.ListScores(env.ctx, ListScoresInput{Offset: 5, Limit: 1}); err != nil || len(page) != 1 {
				t.Errorf("a page: %d scores, %v", len(page), err)
			}
			if n, err := c.CountScores(env.ctx, CountScoresInput{Criteria: crit}); err != nil || n != 1 {
				t.Errorf("a filtered count: %d, %v", n, err)
			}
			if n, err := c.CountScores(env.ctx, CountScoresInput{Offset: 2, Limit: 3}); err != nil || n != 3 {
				t.Errorf("a count with offset and limit: %d, %v", n, err)
			}
			if all, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 1, 0); err != nil || len(all) != 6 {
				t.Errorf("the walk from 1: %d scores, %v", len(all), err)
			}
			if err := c.Close(env.ctx); err != nil {
				t.Fatal(err)
			}
			if st := env.stats(); st.Logins["oauth"] != 1 || st.LiveTokens != 0 {
				t.Errorf("%d grants, %d tokens live after Close; want 1 and 0", st.Logins["oauth"], st.LiveTokens)
			}
		})
	}
}

// TestForbiddenIsNotAnExpiredTokenWhenTheTokenIsValid: a 403 from something in front
// of the platform, with the token still valid, is reported, and the token neither
// dropped nor replaced.
func TestForbiddenIsNotAnExpiredTokenWhenTheTokenIsValid(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "refuseGetBody")
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	c.showGetBody(env.ctx, "a test") // as if a platform had asked for a body
	_, err := c.ListScores(env.ctx, ListScoresInput{Limit: 1})
	if !IsForbidden(err) {
		t.Errorf("a list refused by the CDN: %v, want 403", err)
	}
	if st := env.stats(); st.Logins["oauth"] != 1 || st.LiveTokens != 1 {
		t.Errorf("%d grants and %d tokens live, want 1 and 1", st.Logins["oauth"], st.LiveTokens)
	}
}

// TestHuntReadings: readings the specification allows that no report named, found by
// walking the rules over the table's rows (docs/development/platform-readings.md,
// "The hunt").
func TestHuntReadings(t *testing.T) {
	t.Parallel()
	t.Run("numbers as strings and extra wrapper members", func(t *testing.T) {
		t.Parallel()
		var n *int
		if err := decodeAnswer([]byte(`{"count": "7", "_links": {"self": {"href": "/x"}}}`), "count", &n); err != nil || n == nil || *n != 7 {
			t.Errorf("a count as a string (protojson int64): %v, %v", n, err)
		}
		var s *Score
		if err := decodeAnswer([]byte(`{"score": {"id": "a", "createdAt": 1764024352}, "_links": {}, "requestId": "r-1"}`), "score", &s); err != nil ||
			s == nil || s.ID != "a" || !s.CreatedAt.IsZero() {
			t.Errorf("a wrapped score beside other members, a timestamp as epoch seconds: %+v, %v", s, err)
		}
		if err := decodeAnswer([]byte(`{"score": {"id": "b", "status": "idle", "renderings": [{"format": "svg", "pages": "3"}]}}`), "score", &s); s == nil || s.ID != "b" || s.Status != "idle" {
			t.Errorf("a score with a member of another type: %+v, %v", s, err)
		}
		var list []*Score
		if err := decodeAnswer([]byte(`{"scores": [{"id": "a", "renderings": [{"pages": "3"}]}, {"id": "b"}]}`), "scores", &list); err != nil || len(list) != 2 {
			t.Errorf("a list with a score holding a member of another type: %d scores, %v", len(list), err)
		}
		if err := decodeAnswer([]byte(`{"scores": null, "total": "0"}`), "scores", &list); err != nil || len(list) != 0 {
			t.Errorf("a null list: %v, %v", list, err)
		}
	})
	t.Run("link relations in another case", func(t *testing.T) {
		t.Parallel()
		var doc struct {
			Links Links `json:"_links"`
		}
		if err := json.Unmarshal([]byte(`{"_links": {"Auth:Token": [{"href": "/auth/tokens/current{?fields}", "name": "current"}]}}`), &doc); err != nil {
			t.Fatal(err)
		}
		if l, ok := doc.Links.Named("auth:token", "current"); !ok || l.Href != "/auth/tokens/current" {
			t.Errorf("auth:token spelt Auth:Token: %+v, %v", l, ok)
		}
	})
}
