package main

// Conformance, section C of the contract: score publishing and views.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// §C Score publishing

var uuidV4RE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// checkScore checks the score object's shape.
func checkScore(t *testing.T, s map[string]any, scoreURL, alias, user string, transpose bool) {
	t.Helper()
	if !uuidV4RE.MatchString(str(s["id"])) {
		t.Errorf("score id %v is not a UUID v4", s["id"])
	}
	if s["scoreUrl"] != scoreURL {
		t.Errorf("scoreUrl = %v, want %q", s["scoreUrl"], scoreURL)
	}
	pub := objOf(s["publisher"])
	if alias == "" {
		if has(pub, "scoreId") {
			t.Errorf("publisher = %v: scoreId present without an alias", pub)
		}
	} else if pub["scoreId"] != alias {
		t.Errorf("publisher.scoreId = %v, want %q", pub["scoreId"], alias)
	}
	if at(pub, "identity", "user") != user {
		t.Errorf("publisher.identity.user = %v, want %q", at(pub, "identity", "user"), user)
	}
	if at(s, "options", "transpose") != transpose {
		t.Errorf("options.transpose = %v, want %v", at(s, "options", "transpose"), transpose)
	}
	switch s["status"] {
	case "pending", "rendering", "idle", "error":
	default:
		t.Errorf("status = %v", s["status"])
	}
	created := timestamp(t, "createdAt", s["createdAt"])
	updated := timestamp(t, "updatedAt", s["updatedAt"])
	if updated.Before(created) {
		t.Errorf("updatedAt %v before createdAt %v", updated, created)
	}
	if _, ok := s["renderings"].([]any); !ok {
		t.Errorf("renderings = %#v, want an array", s["renderings"])
	}
}

// progressionPhase is the render delay of the status progression's emulator: how long
// a score stays pending, then rendering.
const progressionPhase = time.Second

func TestConformancePublish(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "100ms")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"
	publish := func(t *testing.T, body any) *reply {
		t.Helper()
		return e.do(t, http.MethodPost, scores, body, bearer(tok)...)
	}

	t.Run("health", func(t *testing.T) {
		r := e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok)...).want(t, http.StatusOK)
		got, _ := json.Marshal(r.obj(t))
		if string(got) != `{"service":{"healthStatus":"ok","healthVerifier":"default"}}` {
			t.Errorf("health = %s", got)
		}
		e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, cookie(tok)...).want(t, http.StatusOK)
		e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	})

	t.Run("bad arguments", func(t *testing.T) {
		long := strings.Repeat("a", 129)
		for _, tc := range []struct {
			name  string
			body  any
			field string
		}{
			{"no scoreUrl", map[string]any{}, "scoreUrl"},
			{"empty scoreUrl", map[string]any{"scoreUrl": ""}, "scoreUrl"},
			{"relative scoreUrl", map[string]any{"scoreUrl": "/score.sib"}, "scoreUrl"},
			{"ftp scoreUrl", map[string]any{"scoreUrl": "ftp://cdn.example/score.sib"}, "scoreUrl"},
			{"scoreUrl without host", map[string]any{"scoreUrl": "https:///score.sib"}, "scoreUrl"},
			{"scoreUrl not a string", map[string]any{"scoreUrl": 5}, "scoreUrl"},
			{"scoreUrl not a URL", map[string]any{"scoreUrl": "not a url"}, "scoreUrl"},
			{"scoreUrl with a bad host", map[string]any{"scoreUrl": "https://cdn example/a.sib"}, "scoreUrl"},
			{"options not an object", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "options": "transpose"}, "options"},
			{"alias too long", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": long}, "scoreId"},
			{"alias empty", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": ""}, "scoreId"},
			{"alias with a space", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "a b"}, "scoreId"},
			{"alias with a slash", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "a/b"}, "scoreId"},
			{"alias not ASCII", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "scoré"}, "scoreId"},
			{"alias is a UUID", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "4f0c6d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f"}, "scoreId"},
			{"alias not a string", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": 12}, "scoreId"},
			{"transpose not a boolean", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "options": map[string]any{"transpose": "yes"}}, "options.transpose"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				publish(t, tc.body).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
			})
		}
		publish(t, raw{"application/json", `{"scoreUrl":`}).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "")
		publish(t, raw{"application/json", `["https://cdn.example/a.sib"]`}).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "")
	})

	t.Run("publish get delete", func(t *testing.T) {
		// Without an alias; unknown fields ignored; default transpose false.
		r := publish(t, map[string]any{"scoreUrl": "https://cdn.example/one.sib", "unknown": map[string]any{"x": 1}}).want(t, http.StatusOK)
		body := r.obj(t)
		if len(body) != 1 {
			t.Errorf("publish response keys %v, want only score", keys(body))
		}
		one := objOf(body["score"])
		checkScore(t, one, "https://cdn.example/one.sib", "", "alice", false)
		if one["status"] != "pending" {
			t.Errorf("new score status %v, want pending", one["status"])
		}
		if at(one, "renderings") == nil || len(arr(one["renderings"])) != 0 {
			t.Errorf("new score renderings = %v, want []", one["renderings"])
		}
		id := str(one["id"])

		// With alias and transpose; the viewer is the publisher.
		vtok := e.token(t, "viewer")
		r = e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "http://cdn.example/two.sib", "scoreId": "my.Great_score-2",
			"options": map[string]any{"transpose": true}}, bearer(vtok)...).want(t, http.StatusOK)
		two := objOf(r.obj(t)["score"])
		checkScore(t, two, "http://cdn.example/two.sib", "my.Great_score-2", "viewer", true)
		publish(t, map[string]any{"scoreUrl": "https://cdn.example/other.sib", "scoreId": "my.Great_score-2"}).problem(t, http.StatusConflict, "publishing/CONFLICT", "")
		// A 128-character alias is fine.
		publish(t, map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": strings.Repeat("x", 128)}).want(t, http.StatusOK)

		// Parameters in the query string; the body wins over the query.
		q := scores + "?" + url.Values{"scoreUrl": {"https://cdn.example/query.sib"}, "scoreId": {"fromQuery"}}.Encode()
		r = e.do(t, http.MethodPost, q, nil, bearer(tok)...).want(t, http.StatusOK)
		checkScore(t, objOf(r.obj(t)["score"]), "https://cdn.example/query.sib", "fromQuery", "alice", false)
		q = scores + "?" + url.Values{"scoreUrl": {"https://cdn.example/query.sib"}, "scoreId": {"queryLoses"}}.Encode()
		r = e.do(t, http.MethodPost, q, map[string]any{"scoreUrl": "https://cdn.example/body.sib", "scoreId": "bodyWins"}, bearer(tok)...).want(t, http.StatusOK)
		checkScore(t, objOf(r.obj(t)["score"]), "https://cdn.example/body.sib", "bodyWins", "alice", false)

		// Get by UUID and by alias.
		for _, ref := range []string{id, str(two["id"]), "my.Great_score-2"} {
			g := e.do(t, http.MethodGet, scores+"/"+ref, nil, bearer(tok)...).want(t, http.StatusOK).obj(t)
			if len(g) != 1 || g["score"] == nil {
				t.Errorf("GET %s keys %v, want only score", ref, keys(g))
			}
		}
		g := objOf(e.do(t, http.MethodGet, scores+"/my.Great_score-2", nil, cookie(tok)...).want(t, http.StatusOK).obj(t)["score"])
		if g["id"] != two["id"] {
			t.Errorf("GET by alias returned %v, want %v", g["id"], two["id"])
		}
		checkScore(t, g, "http://cdn.example/two.sib", "my.Great_score-2", "viewer", true)
		for _, ref := range []string{"4f0c6d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f", "noSuchAlias"} {
			e.do(t, http.MethodGet, scores+"/"+ref, nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		}

		// Delete by UUID, by alias, with purge in the query and in the body.
		del := func(ref string, body any, query string) *reply {
			return e.do(t, http.MethodDelete, scores+"/"+ref+query, body, bearer(tok)...)
		}
		if r := del(id, nil, ""); r.status != http.StatusNoContent || len(r.body) != 0 {
			t.Errorf("%s: want 204 without body", r)
		}
		e.do(t, http.MethodGet, scores+"/"+id, nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		del(id, nil, "").problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		if r := del("my.Great_score-2", nil, "?purge=true"); r.status != http.StatusNoContent {
			t.Errorf("%s: want 204", r)
		}
		e.do(t, http.MethodGet, scores+"/"+str(two["id"]), nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		// The alias is free again.
		publish(t, map[string]any{"scoreUrl": "https://cdn.example/again.sib", "scoreId": "my.Great_score-2"}).want(t, http.StatusOK)
		del("my.Great_score-2", map[string]any{"purge": "sometimes"}, "").problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "purge")
		del("my.Great_score-2", nil, "?purge=maybe").problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "purge")
		if r := del("my.Great_score-2", map[string]any{"purge": true}, ""); r.status != http.StatusNoContent {
			t.Errorf("%s: want 204", r)
		}
		del("fromQuery", map[string]any{"purge": false}, "").want(t, http.StatusNoContent)
		del("noSuchAlias", nil, "?purge=true").problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	})

	t.Run("status progression", func(t *testing.T) {
		t.Parallel()
		// An emulator of its own, whose scores spend progressionPhase in pending and
		// in rendering: the test sees a status by polling, and a poll that comes later
		// than one phase misses it. At the 100 ms of the others, a make check beside two
		// busy loops saw a score go from pending to error.
		e := startEmulator(t, "-render-delay", progressionPhase.String())
		tok := e.token(t, "alice")
		scores := e.PublishingURL + "/scores"
		publish := func(t *testing.T, body any) *reply {
			t.Helper()
			return e.do(t, http.MethodPost, scores, body, bearer(tok)...)
		}
		for _, tc := range []struct {
			url, final string
		}{
			{"https://cdn.example/good.sib", "idle"},
			{"https://scores.example.invalid/bad.sib", "error"},
		} {
			r := publish(t, map[string]any{"scoreUrl": tc.url}).want(t, http.StatusOK)
			start := time.Now()
			s := objOf(r.obj(t)["score"])
			id := str(s["id"])
			seen := []string{str(s["status"])}
			var last map[string]any
			if !eventually(5*progressionPhase, func() bool {
				last = objOf(e.do(t, http.MethodGet, scores+"/"+id, nil, bearer(tok)...).want(t, http.StatusOK).obj(t)["score"])
				st := str(last["status"])
				if st != seen[len(seen)-1] {
					seen = append(seen, st)
					// progressionPhase in each of pending and rendering (some slack for
					// the time between creation and the response).
					slack := 3 * progressionPhase / 10
					if earliest := map[string]time.Duration{"rendering": progressionPhase - slack, "idle": 2*progressionPhase - slack,
						"error": 2*progressionPhase - slack}[st]; time.Since(start) < earliest {
						t.Errorf("score %s reached %s after %v, want ≥ %v with -render-delay %v", tc.url, st, time.Since(start), earliest,
							progressionPhase)
					}
				}
				if st != "idle" && len(arr(last["renderings"])) != 0 {
					t.Errorf("score %s in status %s has renderings %v", tc.url, st, last["renderings"])
				}
				return st == "idle" || st == "error"
			}) {
				t.Fatalf("score %s stays %v", tc.url, seen)
			}
			if want := []string{"pending", "rendering", tc.final}; !slices.Equal(seen, want) {
				t.Errorf("score %s went through %v, want %v", tc.url, seen, want)
			}
			checkScore(t, last, tc.url, "", "alice", false)
			if !timestamp(t, "updatedAt", last["updatedAt"]).After(timestamp(t, "createdAt", last["createdAt"])) {
				t.Errorf("updatedAt did not move on status changes: %v", last)
			}
			rend := arr(last["renderings"])
			if tc.final == "idle" {
				n, ok := num(at(rend, 0, "pages"))
				if len(rend) != 1 || at(rend, 0, "format") != "svg" || !ok || n < 1 {
					t.Errorf("idle score renderings = %v, want one {format: svg, pages: n}", last["renderings"])
				}
			}
		}
	})
}

func TestConformanceScoreList(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"

	// 55 scores: 5 with aliases, 3 that fail rendering; with no render delay they
	// settle at once.
	const total = 55
	for i := range total {
		body := map[string]any{"scoreUrl": fmt.Sprintf("https://cdn.example/%02d.sib", i)}
		if i%11 == 0 {
			body["scoreId"] = fmt.Sprintf("alias%02d", i)
		}
		if i%20 == 1 {
			body["scoreUrl"] = fmt.Sprintf("https://broken.invalid/%02d.sib", i)
		}
		e.do(t, http.MethodPost, scores, body, bearer(tok)...).want(t, http.StatusOK)
	}
	list := func(t *testing.T, query url.Values, body any) []any {
		t.Helper()
		u := scores
		if query != nil {
			u += "?" + query.Encode()
		}
		m := e.do(t, http.MethodGet, u, body, bearer(tok)...).want(t, http.StatusOK).obj(t)
		s, ok := m["scores"].([]any)
		if !ok {
			t.Fatalf("GET %s: scores = %#v, want an array", u, m["scores"])
		}
		return s
	}
	ids := func(s []any) []string {
		var out []string
		for _, x := range s {
			out = append(out, str(at(x, "id")))
		}
		return out
	}
	if !eventually(3*time.Second, func() bool {
		return len(list(t, url.Values{"limit": {"100"}, "score": {`{"status":"pending"}`}}, nil))+
			len(list(t, url.Values{"limit": {"100"}, "score": {`{"status":"rendering"}`}}, nil)) == 0
	}) {
		t.Fatal("scores do not settle with -render-delay 0")
	}

	all := list(t, url.Values{"limit": {"100"}}, nil)
	if len(all) != total {
		t.Fatalf("limit 100 returned %d scores, want %d", len(all), total)
	}
	for i := 1; i < len(all); i++ {
		a, b := objOf(all[i-1]), objOf(all[i])
		ka, kb := str(a["createdAt"])+" "+str(a["id"]), str(b["createdAt"])+" "+str(b["id"])
		if ka > kb {
			t.Errorf("list not ordered by createdAt, then id: %s before %s", ka, kb)
		}
	}
	allIDs := ids(all)

	t.Run("paging", func(t *testing.T) {
		if got := ids(list(t, nil, nil)); !slices.Equal(got, allIDs[:50]) {
			t.Errorf("default page has %d scores, want the first 50", len(got))
		}
		if got := ids(list(t, url.Values{"offset": {"50"}}, nil)); !slices.Equal(got, allIDs[50:]) {
			t.Errorf("offset 50 returned %d scores, want the last 5", len(got))
		}
		if got := ids(list(t, url.Values{"offset": {"10"}, "limit": {"3"}}, nil)); !slices.Equal(got, allIDs[10:13]) {
			t.Errorf("offset 10 limit 3 = %v, want %v", got, allIDs[10:13])
		}
		if got := list(t, url.Values{"offset": {"55"}}, nil); len(got) != 0 {
			t.Errorf("offset past the end returned %d scores", len(got))
		}
		if got := ids(list(t, url.Values{"limit": {"1"}}, nil)); !slices.Equal(got, allIDs[:1]) {
			t.Errorf("limit 1 = %v", got)
		}
		// In a JSON body; the body wins over the query.
		if got := ids(list(t, nil, map[string]any{"offset": 20, "limit": 2})); !slices.Equal(got, allIDs[20:22]) {
			t.Errorf("body offset 20 limit 2 = %v, want %v", got, allIDs[20:22])
		}
		if got := ids(list(t, url.Values{"offset": {"1"}, "limit": {"1"}}, map[string]any{"offset": 3, "limit": 4})); !slices.Equal(got, allIDs[3:7]) {
			t.Errorf("body over query = %v, want %v", got, allIDs[3:7])
		}
	})

	t.Run("criteria", func(t *testing.T) {
		errored := list(t, url.Values{"score": {`{"status":"error"}`}}, nil)
		if len(errored) != 3 {
			t.Errorf("status error matched %d scores, want 3", len(errored))
		}
		for _, s := range errored {
			if !strings.Contains(str(at(s, "scoreUrl")), ".invalid/") {
				t.Errorf("status error matched %v", s)
			}
		}
		if got := list(t, url.Values{"score": {`{"status":"idle"}`}, "limit": {"100"}}, nil); len(got) != total-3 {
			t.Errorf("status idle matched %d scores, want %d", len(got), total-3)
		}
		if got := list(t, url.Values{"score": {`{"scoreId":"alias22"}`}}, nil); len(got) != 1 || at(got, 0, "publisher", "scoreId") != "alias22" {
			t.Errorf("scoreId alias22 matched %v", got)
		}
		if got := list(t, url.Values{"score": {`{"scoreUrl":"https://cdn.example/07.sib"}`}}, nil); len(got) != 1 || at(got, 0, "scoreUrl") != "https://cdn.example/07.sib" {
			t.Errorf("scoreUrl matched %v", got)
		}
		if got := list(t, url.Values{"score": {`{"status":"idle","scoreId":"alias11"}`}}, nil); len(got) != 1 {
			t.Errorf("status+scoreId matched %d scores, want 1", len(got))
		}
		if got := list(t, url.Values{"score": {`{"status":"error","scoreId":"alias11"}`}}, nil); len(got) != 0 {
			t.Errorf("status error + scoreId alias11 matched %d scores, want 0", len(got))
		}
		if got := list(t, url.Values{"score": {`{}`}}, nil); len(got) != 50 {
			t.Errorf("empty criteria matched %d scores, want 50", len(got))
		}
		// Criteria in a JSON body, as an object; the body wins.
		if got := list(t, url.Values{"score": {`{"status":"idle"}`}}, map[string]any{"score": map[string]any{"status": "error"}}); len(got) != 3 {
			t.Errorf("body criteria matched %d scores, want 3", len(got))
		}
		if got := list(t, nil, map[string]any{"score": map[string]any{"scoreId": "alias33"}, "limit": 5}); len(got) != 1 {
			t.Errorf("body scoreId criteria matched %d scores, want 1", len(got))
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			q     url.Values
			body  any
			field string
		}{
			{url.Values{"limit": {"0"}}, nil, "limit"},
			{url.Values{"limit": {"101"}}, nil, "limit"},
			{url.Values{"limit": {"ten"}}, nil, "limit"},
			{url.Values{"offset": {"-1"}}, nil, "offset"},
			{url.Values{"offset": {"x"}}, nil, "offset"},
			{url.Values{"score": {"status=idle"}}, nil, "score"},
			{url.Values{"score": {`["idle"]`}}, nil, "score"},
			{url.Values{"score": {`"idle"`}}, nil, "score"},
			{nil, map[string]any{"limit": 101}, "limit"},
			{nil, map[string]any{"offset": -5}, "offset"},
			{nil, map[string]any{"score": []any{"idle"}}, "score"},
			{nil, map[string]any{"score": "idle"}, "score"},
		} {
			u := scores
			if tc.q != nil {
				u += "?" + tc.q.Encode()
			}
			e.do(t, http.MethodGet, u, tc.body, bearer(tok)...).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
		}
	})

	t.Run("count", func(t *testing.T) {
		count := func(t *testing.T, method string, q url.Values, body any) int64 {
			t.Helper()
			u := scores + "/count"
			if q != nil {
				u += "?" + q.Encode()
			}
			m := e.do(t, method, u, body, bearer(tok)...).want(t, http.StatusOK).obj(t)
			n, ok := num(m["count"])
			if !ok || len(m) != 1 {
				t.Fatalf("%s %s = %v, want {count: n}", method, u, m)
			}
			return n
		}
		for _, tc := range []struct {
			q    url.Values
			body any
			want int64
		}{
			{nil, nil, total},
			{nil, map[string]any{}, total},
			{nil, map[string]any{"score": map[string]any{"status": "error"}}, 3},
			{nil, map[string]any{"score": map[string]any{"scoreId": "alias44"}}, 1},
			{nil, map[string]any{"offset": 50}, 5},
			{nil, map[string]any{"offset": 10, "limit": 20}, 20},
			{nil, map[string]any{"offset": 50, "limit": 20}, 5},
			{nil, map[string]any{"offset": 60}, 0},
			{nil, map[string]any{"limit": 7}, 7},
			{nil, map[string]any{"score": map[string]any{"status": "error"}, "offset": 1}, 2},
			{url.Values{"score": {`{"status":"error"}`}}, nil, 3},
			{url.Values{"offset": {"50"}}, nil, 5},
			{url.Values{"offset": {"2"}, "limit": {"3"}}, nil, 3},
			{url.Values{"offset": {"2"}}, map[string]any{"offset": 54}, 1},
		} {
			for _, method := range []string{http.MethodPost, http.MethodGet} {
				if got := count(t, method, tc.q, tc.body); got != tc.want {
					t.Errorf("%s /scores/count query %v body %v = %d, want %d", method, tc.q, tc.body, got, tc.want)
				}
			}
		}
		for _, tc := range []struct {
			q     url.Values
			body  any
			field string
		}{
			{url.Values{"offset": {"-1"}}, nil, "offset"},
			{url.Values{"limit": {"-1"}}, nil, "limit"},
			{url.Values{"score": {`[1]`}}, nil, "score"},
			{url.Values{"score": {`{`}}, nil, "score"},
			{nil, map[string]any{"score": "error"}, "score"},
			{nil, map[string]any{"offset": "x"}, "offset"},
		} {
			for _, method := range []string{http.MethodPost, http.MethodGet} {
				u := scores + "/count"
				if tc.q != nil {
					u += "?" + tc.q.Encode()
				}
				e.do(t, method, u, tc.body, bearer(tok)...).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
			}
		}
	})
}

func TestConformanceViews(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"
	score := objOf(e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/v.sib", "scoreId": "viewed"},
		bearer(tok)...).want(t, http.StatusOK).obj(t)["score"])
	id := str(score["id"])
	view := func(t *testing.T, ref string, body any) *reply {
		t.Helper()
		return e.do(t, http.MethodPost, scores+"/"+ref+"/view", body, bearer(tok)...)
	}
	checkView := func(t *testing.T, r *reply, expiresIn int, settings map[string]any) map[string]any {
		t.Helper()
		m := r.want(t, http.StatusOK).obj(t)
		v := objOf(m["view"])
		if len(m) != 1 || v == nil {
			t.Fatalf("%s: want {view: {…}}", r)
		}
		if str(v["id"]) == "" || v["scoreId"] != id {
			t.Errorf("view %v: want an id and scoreId %q", v, id)
		}
		if v["viewerUrl"] != e.PlatformURL+"/viewer/"+str(v["id"]) {
			t.Errorf("viewerUrl = %v, want %s/viewer/<view id>", v["viewerUrl"], e.PlatformURL)
		}
		created := timestamp(t, "view createdAt", v["createdAt"])
		expires := timestamp(t, "view expiresAt", v["expiresAt"])
		if d := expires.Sub(created); d != time.Duration(expiresIn)*time.Second {
			t.Errorf("view expiresAt − createdAt = %v, want %ds", d, expiresIn)
		}
		got := objOf(v["settings"])
		for k, want := range settings {
			if got[k] != want {
				t.Errorf("settings.%s = %#v, want %#v", k, got[k], want)
			}
		}
		for _, k := range []string{"printable", "pages", "licenseString", "lang"} {
			if !has(got, k) {
				t.Errorf("settings lacks %s: %v", k, got)
			}
		}
		return v
	}
	viewer := func(t *testing.T, v map[string]any, status int) {
		t.Helper()
		r := e.do(t, http.MethodGet, str(v["viewerUrl"]), nil)
		if r.status != status {
			t.Errorf("%s: want %d", r, status)
		}
		if status == http.StatusOK && r.mediaType() != "text/html" {
			t.Errorf("%s: Content-Type %q, want text/html", r, r.header.Get("Content-Type"))
		}
	}

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			body  any
			field string
		}{
			{"expiresIn negative", map[string]any{"expiresIn": -1}, "expiresIn"},
			{"expiresIn too large", map[string]any{"expiresIn": 86401}, "expiresIn"},
			{"expiresIn not a number", map[string]any{"expiresIn": "soon"}, "expiresIn"},
			{"expiresIn fractional", map[string]any{"expiresIn": 1.5}, "expiresIn"},
			{"printable not a boolean", map[string]any{"settings": map[string]any{"printable": "yes"}}, "settings.printable"},
			{"pages zero", map[string]any{"settings": map[string]any{"pages": "0"}}, "settings.pages"},
			{"pages reversed range", map[string]any{"settings": map[string]any{"pages": "3-1"}}, "settings.pages"},
			{"pages words", map[string]any{"settings": map[string]any{"pages": "all"}}, "settings.pages"},
			{"pages empty item", map[string]any{"settings": map[string]any{"pages": "1,,2"}}, "settings.pages"},
			{"pages open range", map[string]any{"settings": map[string]any{"pages": "2-"}}, "settings.pages"},
			{"pages negative", map[string]any{"settings": map[string]any{"pages": "-2"}}, "settings.pages"},
			{"pages not a string", map[string]any{"settings": map[string]any{"pages": 3}}, "settings.pages"},
			{"pages with spaces", map[string]any{"settings": map[string]any{"pages": "1 - 3"}}, "settings.pages"},
			{"settings not an object", map[string]any{"settings": "printable"}, "settings"},
			{"expiresIn as a string", map[string]any{"expiresIn": "60"}, "expiresIn"},
			{"licenseString too long", map[string]any{"settings": map[string]any{"licenseString": strings.Repeat("L", 1025)}}, "settings.licenseString"},
			{"licenseString too many characters", map[string]any{"settings": map[string]any{"licenseString": strings.Repeat("é", 1025)}}, "settings.licenseString"},
			{"licenseString not a string", map[string]any{"settings": map[string]any{"licenseString": true}}, "settings.licenseString"},
			{"lang not BCP 47", map[string]any{"settings": map[string]any{"lang": "english please"}}, "settings.lang"},
			{"lang not a string", map[string]any{"settings": map[string]any{"lang": 1}}, "settings.lang"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				view(t, "viewed", tc.body).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
			})
		}
		view(t, "noSuchScore", map[string]any{}).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		view(t, "4f0c6d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f", map[string]any{}).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	})

	t.Run("create", func(t *testing.T) {
		defaults := map[string]any{"printable": false, "licenseString": "", "lang": "en"}
		v := checkView(t, view(t, "viewed", nil), 7200, defaults)
		viewer(t, v, http.StatusOK)
		checkView(t, view(t, id, map[string]any{"expiresIn": 0}), 7200, defaults)
		checkView(t, view(t, id, map[string]any{"expiresIn": 86400, "unknown": 1}), 86400, defaults)
		full := map[string]any{"printable": true, "pages": "1-3,5,8-9", "licenseString": strings.Repeat("L", 1024), "lang": "fr-CA"}
		checkView(t, view(t, "viewed", map[string]any{"expiresIn": 60, "settings": full}), 60, full)
		// The limit counts characters, not bytes.
		wide := map[string]any{"licenseString": strings.Repeat("é", 1024)}
		checkView(t, view(t, "viewed", map[string]any{"settings": wide}), 7200, wide)
		// Query parameters; the body wins.
		q := scores + "/viewed/view?expiresIn=30&settings.lang=de"
		de := map[string]any{"printable": false, "licenseString": "", "lang": "de"}
		checkView(t, e.do(t, http.MethodPost, q, nil, bearer(tok)...), 30, de)
		checkView(t, e.do(t, http.MethodPost, q, map[string]any{"expiresIn": 40}, bearer(tok)...), 40, de)
		e.do(t, http.MethodGet, e.PlatformURL+"/viewer/no-such-view", nil).want(t, http.StatusNotFound)
	})

	t.Run("expiry and deletion", func(t *testing.T) {
		short := checkView(t, view(t, "viewed", map[string]any{"expiresIn": 1}), 1, nil)
		long := checkView(t, view(t, "viewed", map[string]any{"expiresIn": 600}), 600, nil)
		viewer(t, short, http.StatusOK)
		time.Sleep(1100 * time.Millisecond)
		viewer(t, short, http.StatusGone)
		viewer(t, long, http.StatusOK)
		e.do(t, http.MethodDelete, scores+"/viewed", nil, bearer(tok)...).want(t, http.StatusNoContent)
		viewer(t, long, http.StatusNotFound)
		viewer(t, short, http.StatusNotFound)
		view(t, "viewed", nil).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	})
}
