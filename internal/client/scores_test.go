package client

// The score publishing calls: an unknown outcome, paging, waiting for rendering.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

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
		writeJSON(w, map[string]any{"scores": page})
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

func TestEmulatorScores(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/one.sib", Alias: "one", Transpose: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID == "" || s.Alias != "one" || !s.Transpose || s.Status != ScoreStatusPending || s.Publisher != "alice" || s.CreatedAt.IsZero() || len(s.Raw) == 0 {
		t.Errorf("published %+v", s)
	}
	if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/other.sib", Alias: "one"}); !IsConflict(err) {
		t.Errorf("duplicate alias: %v", err)
	}
	if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "not a url"}); !IsBadArgument(err) {
		t.Errorf("bad URL: %v", err)
	}
	byAlias, err := c.GetScore(ctx, "one")
	if err != nil || byAlias.ID != s.ID {
		t.Fatalf("by alias: %+v %v", byAlias, err)
	}
	done, err := c.WaitForRendering(ctx, s.ID)
	if err != nil || done.Status != ScoreStatusIdle || done.PageCount() < 1 || done.UpdatedAt.Before(done.CreatedAt) {
		t.Fatalf("rendered: %+v %v", done, err)
	}
	bad, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.invalid/broken.sib"})
	if err != nil {
		t.Fatal(err)
	}
	if bad, err = c.WaitForRendering(ctx, bad.ID); err != nil || bad.Status != ScoreStatusError || bad.PageCount() != 0 {
		t.Fatalf("broken score: %+v %v", bad, err)
	}

	idle, err := c.ListScores(ctx, ListScoresInput{Criteria: ScoreCriteria{Status: ScoreStatusIdle}})
	if err != nil || len(idle) != 1 || idle[0].ID != s.ID {
		t.Errorf("idle scores %v %v", idle, err)
	}
	byURL, err := c.ListScores(ctx, ListScoresInput{Criteria: ScoreCriteria{ScoreURL: "https://cdn.invalid/broken.sib"}})
	if err != nil || len(byURL) != 1 || byURL[0].ID != bad.ID {
		t.Errorf("by URL %v %v", byURL, err)
	}
	byAliasList, err := c.ListScores(ctx, ListScoresInput{Criteria: ScoreCriteria{Alias: "one"}, Limit: 1})
	if err != nil || len(byAliasList) != 1 {
		t.Errorf("by alias %v %v", byAliasList, err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{}); err != nil || n != 2 {
		t.Errorf("count %d %v", n, err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{Criteria: ScoreCriteria{Status: ScoreStatusError}}); err != nil || n != 1 {
		t.Errorf("count errors %d %v", n, err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{Offset: 1, Limit: 5}); err != nil || n != 1 {
		t.Errorf("count from offset %d %v", n, err)
	}

	printable := true
	v, err := c.CreateView(ctx, "one", ViewInput{Printable: &printable, Pages: "1-2,4", LicenseString: "CC-BY", Lang: "fr-CA", ExpiresIn: 60})
	if err != nil {
		t.Fatal(err)
	}
	if v.ID == "" || v.ScoreID != s.ID || !strings.Contains(v.ViewerURL, "/viewer/") || !v.Settings.Printable ||
		v.Settings.Pages != "1-2,4" || v.Settings.LicenseString != "CC-BY" || v.Settings.Lang != "fr-CA" {
		t.Errorf("view %+v", v)
	}
	if d := v.ExpiresAt.Sub(v.CreatedAt); d != time.Minute {
		t.Errorf("view lifetime %v", d)
	}
	if v, err := c.CreateView(ctx, s.ID, ViewInput{}); err != nil || v.ExpiresAt.Sub(v.CreatedAt) != 2*time.Hour {
		t.Errorf("default view: %+v %v", v, err)
	}
	if _, err := c.CreateView(ctx, s.ID, ViewInput{Pages: "3-1"}); !IsBadArgument(err) {
		t.Errorf("bad pages: %v", err)
	}
	if _, err := c.CreateView(ctx, "missing", ViewInput{}); !IsNotFound(err) {
		t.Errorf("view of missing score: %v", err)
	}

	h, err := c.Health(ctx)
	if err != nil || !h.Healthy || h.Status != "ok" || h.Verifier != "default" {
		t.Errorf("health %+v %v", h, err)
	}

	if err := c.DeleteScore(ctx, "one", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetScore(ctx, s.ID); !IsNotFound(err) {
		t.Errorf("deleted score: %v", err)
	}
	if err := c.DeleteScore(ctx, s.ID, false); !IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}
	var apiErr *APIError
	if _, err := c.GetScore(ctx, "nope"); !errors.As(err, &apiErr) || apiErr.Code != "publishing/NOT_FOUND" || apiErr.Message == "" {
		t.Errorf("not found error: %v", err)
	}
}

func TestEmulatorPagingCounts(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	c := env.client()
	ctx := env.ctx
	for i := range 250 {
		if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/%d.sib", i%3)}); err != nil {
			t.Fatal(err)
		}
	}
	before := env.stats().Requests["GET "+routeScores]
	all, err := c.ListAllScores(ctx, ScoreCriteria{}, 0, 0)
	if err != nil || len(all) != 250 {
		t.Fatalf("got %d scores, %v", len(all), err)
	}
	if n := env.stats().Requests["GET "+routeScores] - before; n != 3 {
		t.Errorf("list requests %d, want 3", n)
	}
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.ID] = true
	}
	if len(seen) != 250 {
		t.Errorf("%d distinct scores", len(seen))
	}
	some, err := c.ListAllScores(ctx, ScoreCriteria{ScoreURL: "https://cdn.example/0.sib"}, 5, 50)
	if err != nil || len(some) != 50 {
		t.Fatalf("filtered: %d %v", len(some), err)
	}
	if n, err := c.CountScores(ctx, CountScoresInput{Criteria: ScoreCriteria{ScoreURL: "https://cdn.example/0.sib"}}); err != nil || n != 84 {
		t.Errorf("count %d %v", n, err)
	}
}

// TestPagingWithoutProgressStops: a platform that answers every page with the same
// scores ends the walk with an error naming it, for the listing and for the batched
// refresh (which falls back to one GET per score).
func TestPagingWithoutProgressStops(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	var ids []string
	for i := range 250 {
		s, err := env.client().PublishScore(env.ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/%d.sib", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Query: func(q url.Values) { q.Del("offset") }})
	done := make(chan error, 1)
	go func() {
		_, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
		done <- err
	}()
	select {
	case err := <-done:
		var paging *PagingError
		if !errors.As(err, &paging) || paging.Offset != 100-WalkOverlap || !strings.Contains(err.Error(), "only scores already listed") {
			t.Fatalf("got %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the walk over pages that repeat themselves did not stop")
	}

	// The batched refresh: pages that repeat themselves are not trusted; every read
	// is answered, by GET.
	for _, id := range ids[200:] {
		s, err := c.RefreshScore(env.ctx, id)
		if err != nil || s.ID != id {
			t.Fatalf("refresh of %s: %+v, %v", id, s, err)
		}
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

func TestAllScoresReadsPastShortPages(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	c, p := env.proxiedClient()
	const n = 250
	for i := range n {
		if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/%d.sib", i)}); err != nil {
			t.Fatal(err)
		}
	}
	p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Query: faultproxy.CapLimit(50)})
	all, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
	if err != nil || len(all) != n {
		t.Fatalf("a platform capping pages at 50: %d scores listed (want %d), %v", len(all), n, err)
	}
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.ID] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct scores, want %d", len(seen), n)
	}
	some, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 10, 120)
	if err != nil || len(some) != 120 || some[0].ID != all[10].ID {
		t.Errorf("offset 10, limit 120: %d scores, %v", len(some), err)
	}
}

// TestAliasAtEitherPlace: the alias is read under publisher (the contract's place) and
// at the top level (where the specification's score table lists it), the contract's
// place first when both carry one; in a list too.
func TestAliasAtEitherPlace(t *testing.T) {
	for body, want := range map[string]string{
		`{"id": "u1", "publisher": {"scoreId": "under"}}`:                       "under",
		`{"id": "u1", "scoreId": "top"}`:                                        "top",
		`{"id": "u1", "scoreId": "top", "publisher": {"scoreId": "under"}}`:     "under",
		`{"id": "u1", "scoreId": "", "publisher": {"identity": {"user": "a"}}}`: "",
		`{"id": "u1", "scoreId": null}`:                                         "",
	} {
		var s Score
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if s.Alias != want {
			t.Errorf("%s: alias %q, want %q", body, s.Alias, want)
		}
	}
	var page []*Score
	if err := json.Unmarshal([]byte(`[{"id": "a", "scoreId": "x"}, {"id": "b", "publisher": {"scoreId": "y"}}]`), &page); err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].Alias != "x" || page[1].Alias != "y" {
		t.Errorf("list: %+v", page)
	}
}

// TestListByAnEquivalentAddress: on a platform that keeps addresses in RFC 3986 normal
// form, a list filtered by another spelling of an address finds its score in one
// request, and the answer's spelling is not taken as a sign that the platform ignored
// the query (which would send every later GET with a body, and repeat the request).
func TestListByAnEquivalentAddress(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "normalizedScoreUrl")
	const sent = "https://CDN.Example:443/x/../eq/Caf%c3%a9.sib"
	if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: sent}); err != nil {
		t.Fatal(err)
	}
	route := "GET " + env.emu.PublishingURL("") + "/scores"
	before := env.stats().Requests[route]
	page, err := c.ListScores(env.ctx, ListScoresInput{Criteria: ScoreCriteria{ScoreURL: sent}})
	if err != nil || len(page) != 1 || page[0].ScoreURL != "https://cdn.example/eq/Caf%C3%A9.sib" {
		t.Fatalf("a list filtered by the sent spelling: %v, %v", page, err)
	}
	if n := env.stats().Requests[route] - before; n != 1 || c.getBodyShown() {
		t.Errorf("the list took %d requests and the GET body shown is %v; want 1 and false", n, c.getBodyShown())
	}
}

// TestScoreAbsentMembers: a score without options or renderings (a listing's summary)
// is read with them unknown, not false and none; options without transpose is false
// (rule 1, within an object the answer gives); GetScore's answer is the whole score.
func TestScoreAbsentMembers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body                              string
		transposeAbsent, renderingsAbsent bool
		summary, transpose                bool
	}{
		{`{"id":"a","status":"idle","options":{"transpose":true},"renderings":[{"format":"svg","pages":3}]}`, false, false, false, true},
		{`{"id":"a","status":"idle"}`, true, true, true, false},
		{`{"id":"a","status":"pending"}`, true, true, true, false},
		{`{"id":"a","status":"pending","options":{}}`, false, true, false, false},
		{`{"id":"a","status":"idle","options":{}}`, false, true, true, false},
		{`{"id":"a","status":"idle","options":null,"renderings":null}`, true, true, true, false},
		{`{"id":"a","status":"error","options":{"transpose":true}}`, false, true, false, true},
		{`{"id":"a","status":"idle","options":"yes","renderings":[]}`, true, false, true, false},
		{`{"id":"a","status":"idle","options":{"transpose":"yes"},"renderings":"none"}`, true, true, true, false},
		{`{"id":"a","status":"idle","options":{"transpose":true},"renderings":[{"format":"svg","pages":"2"}]}`, false, false, false, true},
	} {
		var s Score
		if err := json.Unmarshal([]byte(c.body), &s); err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if s.TransposeAbsent != c.transposeAbsent || s.RenderingsAbsent != c.renderingsAbsent || s.Summary() != c.summary ||
			s.Transpose != c.transpose {
			t.Errorf("%s: transpose %v (absent %v), renderings absent %v, summary %v; want %v (%v), %v, %v", c.body,
				s.Transpose, s.TransposeAbsent, s.RenderingsAbsent, s.Summary(), c.transpose, c.transposeAbsent,
				c.renderingsAbsent, c.summary)
		}
		if whole := s.whole(); whole.Summary() || whole.TransposeAbsent || whole.RenderingsAbsent {
			t.Errorf("%s: the whole score still says members are unknown", c.body)
		}
	}
}

// TestScoreStatusInAnyCase: a score status the specification or the contract names is
// read in any case and kept in their spelling (rule 20); another stays as it came.
func TestScoreStatusInAnyCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"IDLE": ScoreStatusIdle, "Pending": ScoreStatusPending, "RENDERING": ScoreStatusRendering,
		"Error": ScoreStatusError, "idle": ScoreStatusIdle, "ARCHIVED": "ARCHIVED",
	} {
		var s Score
		if err := json.Unmarshal([]byte(`{"id":"s-1","status":"`+in+`"}`), &s); err != nil {
			t.Fatal(err)
		}
		if s.Status != want {
			t.Errorf("status %q read as %q, want %q", in, s.Status, want)
		}
	}
}
