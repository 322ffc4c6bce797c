package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

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
		writeJSON(w, map[string]any{"scores": []any{scoreJSON("s3", "https://cdn/s.sib", "", "idle")}})
	})
	var criteria atomic.Value
	f.handle("GET "+routeScores+"/count", func(w http.ResponseWriter, r *http.Request) {
		criteria.Store(r.URL.Query().Get("score"))
		writeJSON(w, map[string]any{"count": 3})
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

// TestCountUnderChurn: counts of a set that other clients change are snapshots,
// never errors (contract §V4): filtered and offset counts while scores are published
// and deleted all answer, and each answer lies between the set's smallest and largest
// size during the test. Before the recount, several in 30 failed with "cannot be
// true".
func TestCountUnderChurn(t *testing.T) {
	t.Parallel()
	env, c := seededChurnEnv(t, 300, 10*time.Millisecond, emulator.Readings{})
	ids := make([]string, 0, 300)
	for s, err := range c.AllScores(env.ctx, ScoreCriteria{}, 0, 0) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	// The churn publishes a score and deletes the newest seeded one it has not
	// deleted yet: the scores at the end of the list come and go. Its rate keeps pace
	// with this machine: about one and a half changes in the time a quiet count and its
	// check take (60 a second on a machine where that is 25 ms; at 2.5, 100 a second,
	// one run in eight had a count refused five times in a row even on an idle
	// machine), so that a slower machine meets the same churn per count.
	start := time.Now()
	if _, err := c.CountScores(env.ctx, CountScoresInput{Offset: 10}); err != nil {
		t.Fatal(err)
	}
	quiet := time.Since(start)
	rate := int(min(max(1.5/quiet.Seconds(), 5), 100))
	slices.Reverse(ids)
	ch := startChurn(t, env.client(), ids, rate, 4, false)
	var failed []string
	for i := range 30 {
		in := CountScoresInput{Criteria: ScoreCriteria{Status: "idle"}}
		if i%2 == 1 {
			in = CountScoresInput{Offset: 10}
		}
		n, err := c.CountScores(env.ctx, in)
		var countErr *CountError
		switch {
		case errors.As(err, &countErr):
			failed = append(failed, err.Error())
		case err != nil:
			t.Fatal(err)
		case n < 200 || n > 600:
			t.Errorf("count %d of %+v: not a size the set had", n, in)
		}
	}
	ch.halt()
	if ch.published.Load() < 10 {
		t.Fatalf("the churn published only %d scores: the test proves nothing", ch.published.Load())
	}
	t.Logf("%d scores published and deleted meanwhile (%d a second; a quiet count took %s); %d of 30 counts refused",
		ch.published.Load(), rate, quiet, len(failed))
	for _, f := range failed {
		t.Errorf("a count of a moving set was refused: %s", f)
	}
}

// TestBareCount: a count answered as a bare number (field report 2) is read as the
// contract's {"count": n}, and the batched refresh, which lists only once a count
// answered, then lists. How many reads the listing answers depends on the machine's
// speed (a read waits for a page no longer than its own GET takes), so it is not
// counted here: 38 of 150 reads went to GETs in one loaded CI run.
func TestBareCount(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "bareCount")
	var ids []string
	for i := range 150 {
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/" + strings.Repeat("c", i+1) + ".sib"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	for _, in := range []CountScoresInput{{}, {Offset: 100}, {Criteria: ScoreCriteria{ScoreURL: "https://cdn.example/c.sib"}}} {
		want := map[bool]int{true: 1, false: 150 - in.Offset}[in.Criteria.ScoreURL != ""]
		if n, err := c.CountScores(env.ctx, in); err != nil || n != want {
			t.Errorf("count %+v: %d, %v; want %d", in, n, err, want)
		}
	}
	reader := env.client()
	before := env.stats()
	refreshAll(env.ctx, t, reader, ids)
	after := env.stats()
	route := func(method, path string) int {
		key := method + " " + env.emu.PublishingURL("") + path
		return after.Requests[key] - before.Requests[key]
	}
	if route("GET", "/scores") == 0 {
		t.Errorf("the batched refresh of 150 scores read %d of them by GET and listed none: it did not use the count (%d counts)",
			route("GET", "/scores/{id}"), route("POST", "/scores/count")+route("GET", "/scores/count"))
	}
}
