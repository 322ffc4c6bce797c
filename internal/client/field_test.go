package client

// Answers that are not the platform's (a WAF's, a captive portal's, a catch-all front
// end's), readings of the specification other than the contract's (contract §V), the
// two retry budgets, the platform's clock, and the publish recovery that must adopt
// only a score this run can have created.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// blockedPage is what a WAF or a captive portal answers in the platform's place.
var blockedPage = &faultproxy.Answer{
	Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
	Body: "<!DOCTYPE html><html><body><h1>Request blocked</h1></body></html>",
}

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
	if !errors.As(err, &foreign) || foreign.Setting != "publishing_url" ||
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

// TestBareLoginToken: the administrator login may answer with the bare token, as
// text or as a JSON string (contract §V5); an answer that is no token says so
// without quoting it.
func TestBareLoginToken(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		contentType, body, wantErr string
	}{
		"text":        {"text/plain; charset=UTF-8", "sess-1-secretish\n", ""},
		"JSON string": {"application/json", `"sess-1-secretish"`, ""},
		"object":      {"application/json", `{"token":"sess-1-secretish","user":"root"}`, ""},
		"two words":   {"text/plain", "Forbidden by policy sess-1-secretish", "not a session token"},
		"HTML":        {"text/html", "<html>sess-1-secretish</html>", "with an HTML page"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newProxiedPlatform(t, emulator.Options{})
			f.handle(routeAdminLogin, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = w.Write([]byte(tc.body))
			})
			// The session it gave is good for the check and the logout.
			for _, route := range []string{"GET /api/v1/checksession", routeAdminLogout} {
				f.handle(route, func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("token") != "sess-1-secretish" {
						writeProblem(w, 401, "admin/UNAUTHORIZED", "no session")
						return
					}
					writeJSON(w, 200, map[string]any{"valid": true, "user": "root"})
				})
			}
			c := newTestClient(t, f.config())
			s, err := c.CheckSession(context.Background())
			if tc.wantErr == "" {
				if err != nil || !s.Valid {
					t.Fatalf("got %+v, %v", s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "secretish") ||
				strings.Contains(err.Error(), "Forbidden") {
				t.Fatalf("got %v, want an error with %q quoting nothing", err, tc.wantErr)
			}
		})
	}
}

// TestCountByGetAfter405: a platform that counts only with GET answers the POST 405;
// the client counts with GET from then on, in this process (contract §V3).
func TestCountByGetAfter405(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle("POST "+routeScores+"/count", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", "GET")
		writeProblem(w, http.StatusMethodNotAllowed, "publishing/METHOD_NOT_ALLOWED", "use GET")
	})
	f.handle("GET "+routeScores, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]any{"scores": []any{scoreJSON("s3", "https://cdn/s.sib", "", "idle")}})
	})
	var criteria atomic.Value
	f.handle("GET "+routeScores+"/count", func(w http.ResponseWriter, r *http.Request) {
		criteria.Store(r.URL.Query().Get("score"))
		writeJSON(w, 200, map[string]any{"count": 3})
	})
	c := newTestClient(t, f.config())
	for range 3 {
		n, err := c.CountScores(context.Background(), CountScoresInput{Criteria: ScoreCriteria{Status: "idle"}, Limit: 10})
		if err != nil || n != 3 {
			t.Fatalf("got %d, %v", n, err)
		}
	}
	if p, g := f.count("POST "+routeScores+"/count"), f.count("GET "+routeScores+"/count"); p != 1 || g != 3 {
		t.Errorf("POST %d, GET %d: want 1 and 3", p, g)
	}
	if got := criteria.Load(); got != `{"status":"idle"}` {
		t.Errorf("the GET's criteria in the query: %v", got)
	}
}

// TestCountThatCannotBeTrue: a count that ignored its limit, its offset or its
// criteria is an error naming the parameter, never a number (contract §V4).
func TestCountThatCannotBeTrue(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	for i := range 12 {
		if _, err := env.client().PublishScore(env.ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/%d.sib", i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A platform that reads none of the count's parameters, wherever they travel.
	ignore := func(names ...string) faultproxy.Fault {
		return faultproxy.Fault{Path: `/scores/count$`, Query: func(q url.Values) {
			for _, n := range names {
				q.Del(n)
			}
		}}
	}
	for name, tc := range map[string]struct {
		ignored []string
		in      CountScoresInput
		want    string
	}{
		"limit":    {[]string{"limit"}, CountScoresInput{Limit: 5}, "above the limit of 5"},
		"offset":   {[]string{"offset"}, CountScoresInput{Offset: 10}, "ignored the parameter offset"},
		"criteria": {[]string{"score"}, CountScoresInput{Criteria: ScoreCriteria{ScoreURL: "https://cdn.example/3.sib"}}, "ignored the parameter score"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, p := env.proxiedClient()
			if n, err := c.CountScores(env.ctx, tc.in); err != nil {
				t.Fatalf("the platform's own count: %d, %v", n, err)
			}
			p.Add(ignore(tc.ignored...))
			n, err := c.CountScores(env.ctx, tc.in)
			var countErr *CountError
			if !errors.As(err, &countErr) || countErr.Count != 12 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %d, %v; want a CountError with %q", n, err, tc.want)
			}
		})
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

// TestRetryBudgetsApart: 429 answers spend the rate-limit budget, not max_retries: a
// 503 or a lost DELETE answer after four 429s is still retried.
func TestRetryBudgetsApart(t *testing.T) {
	t.Parallel()
	tooMany := &faultproxy.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"0"}}}
	unavailable := &faultproxy.Answer{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}}

	t.Run("429s then a 503", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		c, p := env.proxiedClient()
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: tooMany, Times: 4})
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: unavailable, Times: 1})
		if _, err := c.Health(env.ctx); err != nil {
			t.Fatalf("health after four 429s and a 503: %v", err)
		}
		if n := p.Count(http.MethodGet, `/core/health$`); n != 6 {
			t.Errorf("%d attempts, want 6", n)
		}
	})

	t.Run("429s then a lost DELETE answer", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		c, p := env.proxiedClient()
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/d.sib"})
		if err != nil {
			t.Fatal(err)
		}
		p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/scores/`, Respond: tooMany, Times: 4})
		p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/scores/`, Drop: true, Times: 1})
		// The repeated DELETE finds the score gone: a 404, which the resource takes as done.
		if err := c.DeleteScore(env.ctx, s.ID, false); err != nil && !IsNotFound(err) {
			t.Fatalf("delete after four 429s and a lost answer: %v", err)
		}
		if n := p.Count(http.MethodDelete, `/scores/`); n != 6 {
			t.Errorf("%d DELETE attempts, want 6 (four 429s, the lost one, the repeat)", n)
		}
		if n := env.stats().Scores; n != 0 {
			t.Errorf("%d scores, want 0", n)
		}
	})

	t.Run("max_retries still bounds other failures", func(t *testing.T) {
		t.Parallel()
		env := newEmuEnv(t, emulator.Options{})
		c, p := env.proxiedClient()
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: tooMany, Times: 2})
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Respond: unavailable})
		if _, err := c.Health(env.ctx); statusOf(err) != http.StatusServiceUnavailable {
			t.Fatalf("got %v, want the 503 once max_retries is spent", err)
		}
		if n := p.Count(http.MethodGet, `/core/health$`); n != 2+DefaultMaxRetries+1 {
			t.Errorf("%d attempts, want %d", n, 2+DefaultMaxRetries+1)
		}
	})
}

// TestPlatformClock: the platform's clock is learned from the Date header; a token
// expiry given on that clock (and only as iamToken.expiresAt) is judged on it.
func TestPlatformClock(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	const behind = 3 * time.Hour
	f.handle(routeTokenInfo, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(-behind).UTC().Format(http.TimeFormat))
		base := f.proxy.URL
		writeJSON(w, 200, map[string]any{
			"iamToken": map[string]any{"expiresAt": time.Now().Add(-behind + 10*time.Minute).Format("2006-01-02T15:04:05-07:00")},
			"_links": map[string]any{
				"auth-token:extend":  map[string]any{"href": base + "/auth/tokens/current/extension"},
				"auth-token:removal": map[string]any{"href": base + "/auth/tokens/current"},
			}})
	})
	f.handle(routeTokenExtend, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(-behind).UTC().Format(http.TimeFormat))
		writeJSON(w, 200, map[string]any{"iamToken": map[string]any{
			"expiresAt": time.Now().Add(-behind + 10*time.Minute).UTC().Format(time.RFC3339)}})
	})
	f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(-behind).UTC().Format(http.TimeFormat))
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
	})
	c := newTestClient(t, f.config())
	if _, err := c.GetScore(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	platform, known := c.PlatformTime(now)
	if d := now.Sub(platform) - behind; !known || d < -ClockTolerance || d > ClockTolerance {
		t.Errorf("platform time %s for local %s: want %s behind", platform, now, behind)
	}
	tok, err := c.ExtendAccessToken(context.Background(), &AccessToken{Token: "tok-1-secretish"})
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(tok.ExpiresAt); left < 9*time.Minute || left > 11*time.Minute {
		t.Errorf("an expiry 10 minutes ahead on the platform's clock leaves %s on this machine's", left)
	}
}

// TestPublishRecoveryAdoptsOnlyWhatThisRunCreated: after a lost answer, a score under
// the alias created before the publish was sent belongs to someone else (a conflict,
// as the 409 would have said); without an alias, several new scores of the address
// are an error listing them.
func TestPublishRecoveryAdoptsOnlyWhatThisRunCreated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("alias held by an older score of the same address", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, _ *http.Request) {
			writeProblem(w, http.StatusBadGateway, "", "bad gateway")
		})
		f.handle("GET "+routeScores+"/shared", func(w http.ResponseWriter, _ *http.Request) {
			s := scoreJSON("theirs", "https://cdn/a.sib", "shared", "idle")
			s["createdAt"] = time.Now().Add(-5 * time.Second).UTC().Format(time.RFC3339Nano)
			writeJSON(w, 200, map[string]any{"score": s})
		})
		c := newTestClient(t, f.config())
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "shared"})
		if !IsConflict(err) || !strings.Contains(err.Error(), "before this publish was sent") {
			t.Fatalf("got %+v, %v; want a conflict", s, err)
		}
	})

	t.Run("several new scores of the address", func(t *testing.T) {
		t.Parallel()
		f := newProxiedPlatform(t, emulator.Options{})
		f.handle("POST "+routeScores, func(w http.ResponseWriter, _ *http.Request) { dropConnection(w) })
		f.handle("GET "+routeScores, func(w http.ResponseWriter, r *http.Request) {
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			if body["offset"] != nil {
				writeJSON(w, 200, map[string]any{"scores": []any{}})
				return
			}
			old := scoreJSON("old", "https://cdn/a.sib", "", "idle")
			writeJSON(w, 200, map[string]any{"scores": []any{old,
				freshScoreJSON("new-1", "", "idle"), freshScoreJSON("new-2", "", "idle")}})
		})
		c := newTestClient(t, f.config())
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib"})
		var ambiguous *AmbiguousPublishError
		if !errors.As(err, &ambiguous) || strings.Join(ambiguous.IDs, ",") != "new-1,new-2" || !strings.Contains(err.Error(), "new-1, new-2") {
			t.Fatalf("got %v", err)
		}
		if n := f.count("POST " + routeScores); n != 1 {
			t.Errorf("%d publishes, want 1", n)
		}
	})
}
