package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// scoreAPI is an emulator behind a test server, with a platform token for alice.
type scoreAPI struct {
	*emuTester
	pub   string // publishing_url
	token string
	clock *testClock // nil when the real clock runs
}

// newScoreAPI starts an emulator, on a fake clock when fake is set.
func newScoreAPI(t *testing.T, opts Options, fake bool) *scoreAPI {
	t.Helper()
	e := New(opts)
	var clock *testClock
	if fake {
		clock = newTestClock()
		e.scores.now = clock.Now
	}
	api := &scoreAPI{emuTester: serveEmulator(t, e), clock: clock}
	api.pub = e.PublishingURL(api.srv.URL)
	api.token = api.platformLogin(DefaultUserName, DefaultUserPassword)
	return api
}

// wireScore and wireView are the contract's objects; decoding rejects unknown fields.
type wireScore struct {
	ID        string `json:"id"`
	ScoreURL  string `json:"scoreUrl"`
	Publisher struct {
		ScoreID  *string `json:"scoreId"`
		Identity struct {
			User string `json:"user"`
		} `json:"identity"`
	} `json:"publisher"`
	Options struct {
		Transpose *bool `json:"transpose"`
	} `json:"options"`
	Status     string `json:"status"`
	CreatedAt  string `json:"createdAt"`
	UpdatedAt  string `json:"updatedAt"`
	Renderings []struct {
		Format string `json:"format"`
		Pages  int    `json:"pages"`
	} `json:"renderings"`
}

type wireView struct {
	ID        string `json:"id"`
	ScoreID   string `json:"scoreId"`
	ViewerURL string `json:"viewerUrl"`
	CreatedAt string `json:"createdAt"`
	ExpiresAt string `json:"expiresAt"`
	Settings  struct {
		Printable     *bool   `json:"printable"`
		Pages         *string `json:"pages"`
		LicenseString *string `json:"licenseString"`
		Lang          *string `json:"lang"`
	} `json:"settings"`
}

func (r *emuResponse) score(t *testing.T) wireScore {
	t.Helper()
	var env struct {
		Score *wireScore `json:"score"`
	}
	r.decode(t, &env)
	if env.Score == nil {
		t.Fatalf("no score in %s", r.body)
	}
	return *env.Score
}

func (r *emuResponse) scores(t *testing.T) []wireScore {
	t.Helper()
	var env struct {
		Scores []wireScore `json:"scores"`
	}
	r.decode(t, &env)
	if env.Scores == nil {
		t.Fatalf("scores is not an array in %s", r.body)
	}
	return env.Scores
}

func (r *emuResponse) view(t *testing.T) wireView {
	t.Helper()
	var env struct {
		View *wireView `json:"view"`
	}
	r.decode(t, &env)
	if env.View == nil {
		t.Fatalf("no view in %s", r.body)
	}
	return *env.View
}

// keys counts the fields of the object under key in the body.
func (r *emuResponse) keys(t *testing.T, key string) int {
	t.Helper()
	var env map[string]map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	return len(env[key])
}

// call sends method to the publishing path (or to an absolute URL) with an optional
// JSON body, authenticated unless token is "".
func (a *scoreAPI) call(t *testing.T, method, path, token, body string) *emuResponse {
	t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = a.pub + path
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := newRequest(t, method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return roundTrip(t, a.srv.Client(), req)
}

func (a *scoreAPI) do(t *testing.T, method, path, body string) *emuResponse {
	t.Helper()
	return a.call(t, method, path, a.token, body)
}

// publish creates a score and returns it.
func (a *scoreAPI) publish(t *testing.T, body string) wireScore {
	t.Helper()
	return wantScoreOK(t, a.do(t, http.MethodPost, "/scores", body)).score(t)
}

// get reads a score that must exist.
func (a *scoreAPI) get(t *testing.T, ref string) wireScore {
	t.Helper()
	return wantScoreOK(t, a.do(t, http.MethodGet, "/scores/"+ref, "")).score(t)
}

// wantScoreProblem checks a problem+json reply: status, code and params.field when
// given; it returns the params.
func wantScoreProblem(t *testing.T, r *emuResponse, status int, code, field string) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", ct)
	}
	var p struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Params  map[string]any `json:"params"`
		Status  int            `json:"status"`
	}
	r.decode(t, &p)
	if p.Code != code || p.Status != status || p.Message == "" || p.Params == nil {
		t.Errorf("problem = %s, want code %s, status %d, a message and params", r.body, code, status)
	}
	if field != "" && p.Params["field"] != field {
		t.Errorf("params.field = %v, want %s; body %s", p.Params["field"], field, r.body)
	}
	return p.Params
}

// wantScoreOK checks a 200 application/json reply.
func wantScoreOK(t *testing.T, r *emuResponse) *emuResponse {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status = %d, want 200; body %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	return r
}

var uuidV4Pattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestScoresRequireToken(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	routes := []struct{ method, path string }{
		{http.MethodPost, "/scores"},
		{http.MethodGet, "/scores"},
		{http.MethodPost, "/scores/count"},
		{http.MethodGet, "/scores/count"},
		{http.MethodGet, "/scores/some-alias"},
		{http.MethodDelete, "/scores/some-alias"},
		{http.MethodPost, "/scores/some-alias/view"},
		{http.MethodGet, "/core/health"},
	}
	for _, rt := range routes {
		for _, token := range []string{"", "at-unknown"} {
			t.Run(fmt.Sprintf("%s %s token=%q", rt.method, rt.path, token), func(t *testing.T) {
				r := api.call(t, rt.method, rt.path, token, `{"scoreUrl":"https://cdn.example/s.sib"}`)
				wantScoreProblem(t, r, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
			})
		}
	}
	t.Run("expired token", func(t *testing.T) {
		api := newScoreAPI(t, Options{}, true)
		api.e.Expire(true, false)
		wantScoreProblem(t, api.do(t, http.MethodGet, "/core/health", ""), http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	})
	if got := api.e.Stats().Scores; got != 0 {
		t.Errorf("an unauthenticated request created %d scores", got)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	r := wantScoreOK(t, api.do(t, http.MethodGet, "/core/health", ""))
	if got, want := string(r.body), `{"service":{"healthStatus":"ok","healthVerifier":"default"}}`; got != want {
		t.Errorf("health = %s, want %s", got, want)
	}

	// The cookie set by the password grant is accepted as well as the header.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, api.pub+"/core/health", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "serviceAccessToken", Value: api.token})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("health with cookie: %d", resp.StatusCode)
	}
}

func TestPublishScore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body string
		wantURL          string
		wantAlias        string // "" means no publisher.scoreId at all
		wantTranspose    bool
	}{
		{name: "body, url only", path: "/scores", body: `{"scoreUrl":"https://cdn.example/score.sib"}`,
			wantURL: "https://cdn.example/score.sib"},
		{name: "body, all parameters", path: "/scores",
			body:    `{"scoreUrl":"http://cdn.example/a.sib","scoreId":"myGreatScore","options":{"transpose":true},"unknown":1}`,
			wantURL: "http://cdn.example/a.sib", wantAlias: "myGreatScore", wantTranspose: true},
		{name: "query only", path: "/scores?scoreUrl=https%3A%2F%2Fq.example%2Fq.sib&scoreId=q.alias_1-x&options.transpose=true",
			wantURL: "https://q.example/q.sib", wantAlias: "q.alias_1-x", wantTranspose: true},
		{name: "query options as JSON text", path: "/scores?scoreUrl=https://q.example/o.sib&options=" + url.QueryEscape(`{"transpose":true}`),
			wantURL: "https://q.example/o.sib", wantTranspose: true},
		{name: "body wins over query", path: "/scores?scoreUrl=https://query.example/q.sib&options.transpose=true&scoreId=bad%20alias",
			body:    `{"scoreUrl":"https://body.example/b.sib","scoreId":"bodyAlias","options":{"transpose":false}}`,
			wantURL: "https://body.example/b.sib", wantAlias: "bodyAlias"},
		{name: "body and query merge leaf by leaf", path: "/scores?scoreId=fromQuery",
			body:    `{"scoreUrl":"https://body.example/m.sib","scoreId":null}`,
			wantURL: "https://body.example/m.sib", wantAlias: "fromQuery"},
		{name: "longest alias", path: "/scores",
			body:    `{"scoreUrl":"https://cdn.example/l.sib","scoreId":"` + strings.Repeat("a", 128) + `"}`,
			wantURL: "https://cdn.example/l.sib", wantAlias: strings.Repeat("a", 128)},
	}
	api := newScoreAPI(t, Options{}, true)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := wantScoreOK(t, api.do(t, http.MethodPost, tc.path, tc.body))
			score := r.score(t)
			if !uuidV4Pattern.MatchString(score.ID) {
				t.Errorf("id %q is not a UUID v4", score.ID)
			}
			if score.ScoreURL != tc.wantURL {
				t.Errorf("scoreUrl = %s, want %s", score.ScoreURL, tc.wantURL)
			}
			alias := score.Publisher.ScoreID
			if tc.wantAlias == "" && alias != nil {
				t.Errorf("publisher.scoreId = %q, want none", *alias)
			}
			if tc.wantAlias != "" && (alias == nil || *alias != tc.wantAlias) {
				t.Errorf("publisher.scoreId = %v, want %s", alias, tc.wantAlias)
			}
			if score.Publisher.Identity.User != "alice" {
				t.Errorf("publisher.identity.user = %q, want alice", score.Publisher.Identity.User)
			}
			if tr := score.Options.Transpose; tr == nil || *tr != tc.wantTranspose {
				t.Errorf("options.transpose = %v, want %t", tr, tc.wantTranspose)
			}
			if score.Status != "pending" {
				t.Errorf("status = %s, want pending", score.Status)
			}
			created, updated := emuWantTime(t, score.CreatedAt), emuWantTime(t, score.UpdatedAt)
			if !created.Equal(api.clock.Now()) || !updated.Equal(created) {
				t.Errorf("createdAt %v, updatedAt %v, want both %v", created, updated, api.clock.Now())
			}
			if !bytes.Contains(r.body, []byte(`"renderings":[]`)) {
				t.Errorf("renderings is not an empty array: %s", r.body)
			}
			if n := r.keys(t, "score"); n != 8 {
				t.Errorf("score has %d fields, want exactly the contract's eight: %s", n, r.body)
			}
		})
	}
	if got := api.e.Stats().Scores; got != len(tests) {
		t.Errorf("stats scores = %d, want %d", got, len(tests))
	}
}

func TestPublishScoreBadArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body, field string
	}{
		{"no scoreUrl", "/scores", `{"scoreId":"x"}`, "scoreUrl"},
		{"no parameters at all", "/scores", "", "scoreUrl"},
		{"empty scoreUrl", "/scores", `{"scoreUrl":""}`, "scoreUrl"},
		{"relative scoreUrl", "/scores", `{"scoreUrl":"/files/score.sib"}`, "scoreUrl"},
		{"scoreUrl without host", "/scores", `{"scoreUrl":"https:///score.sib"}`, "scoreUrl"},
		{"ftp scoreUrl", "/scores", `{"scoreUrl":"ftp://cdn.example/score.sib"}`, "scoreUrl"},
		{"opaque scoreUrl", "/scores", `{"scoreUrl":"mailto:a@cdn.example"}`, "scoreUrl"},
		{"not a URL", "/scores", `{"scoreUrl":"just text"}`, "scoreUrl"},
		{"scoreUrl not a string", "/scores", `{"scoreUrl":42}`, "scoreUrl"},
		{"bad scoreUrl in query", "/scores?scoreUrl=nope", "", "scoreUrl"},
		{"empty alias", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":""}`, "scoreId"},
		{"alias too long", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":"` + strings.Repeat("a", 129) + `"}`, "scoreId"},
		{"alias with a space", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":"my score"}`, "scoreId"},
		{"alias with a slash", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":"a/b"}`, "scoreId"},
		{"alias not ASCII", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":"partitür"}`, "scoreId"},
		{"alias is a UUID", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":"4f0c6a52-9d7e-4e9b-8c1a-2b3c4d5e6f70"}`, "scoreId"},
		{"alias is an upper-case UUID", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":"4F0C6A52-9D7E-4E9B-8C1A-2B3C4D5E6F70"}`, "scoreId"},
		{"alias is a UUID without hyphens", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":"4f0c6a529d7e4e9b8c1a2b3c4d5e6f70"}`, "scoreId"},
		{"alias not a string", "/scores", `{"scoreUrl":"https://a.example/s","scoreId":7}`, "scoreId"},
		{"bad alias in query", "/scores?scoreUrl=https://a.example/s&scoreId=a%20b", "", "scoreId"},
		{"transpose not a boolean", "/scores", `{"scoreUrl":"https://a.example/s","options":{"transpose":"yes"}}`, "options.transpose"},
		{"transpose in query not a boolean", "/scores?scoreUrl=https://a.example/s&options.transpose=yes", "", "options.transpose"},
		{"options not an object", "/scores", `{"scoreUrl":"https://a.example/s","options":true}`, "options"},
		{"options in query not JSON", "/scores?scoreUrl=https://a.example/s&options=transpose", "", "options"},
		{"body not an object", "/scores", `["https://a.example/s"]`, "body"},
		{"body not JSON", "/scores", `scoreUrl=https://a.example/s`, "body"},
	}
	api := newScoreAPI(t, Options{}, true)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantScoreProblem(t, api.do(t, http.MethodPost, tc.path, tc.body), http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
		})
	}
	if got := api.e.Stats().Scores; got != 0 {
		t.Errorf("a rejected request created %d scores", got)
	}
}

func TestScoreAliasConflict(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	first := api.publish(t, `{"scoreUrl":"https://cdn.example/1.sib","scoreId":"taken"}`)

	r := api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"https://cdn.example/2.sib","scoreId":"taken"}`)
	if params := wantScoreProblem(t, r, http.StatusConflict, "publishing/CONFLICT", ""); params["scoreId"] != "taken" {
		t.Errorf("params = %v, want scoreId taken", params)
	}
	// Aliases are case-sensitive.
	api.publish(t, `{"scoreUrl":"https://cdn.example/3.sib","scoreId":"TAKEN"}`)

	// Deleting the score frees its alias.
	if r := api.do(t, http.MethodDelete, "/scores/"+first.ID, ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	again := api.publish(t, `{"scoreUrl":"https://cdn.example/4.sib","scoreId":"taken"}`)
	if again.ID == first.ID {
		t.Error("a new score reused the deleted score's id")
	}
	if got := api.get(t, "taken"); got.ID != again.ID {
		t.Errorf("the alias addresses %s, want the new score %s", got.ID, again.ID)
	}
}

func TestGetAndDeleteScore(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	r := wantScoreOK(t, api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"https://cdn.example/g.sib","scoreId":"gettable"}`))
	id := r.score(t).ID

	for _, ref := range []string{id, strings.ToUpper(id), strings.ReplaceAll(id, "-", ""), "gettable"} {
		t.Run("GET "+ref, func(t *testing.T) {
			got := wantScoreOK(t, api.do(t, http.MethodGet, "/scores/"+ref, ""))
			if !bytes.Equal(got.body, r.body) {
				t.Errorf("GET = %s, want %s", got.body, r.body)
			}
		})
	}
	for _, ref := range []string{"unknown-alias", "4f0c6a52-9d7e-4e9b-8c1a-2b3c4d5e6f70"} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			t.Run(method+" unknown "+ref, func(t *testing.T) {
				params := wantScoreProblem(t, api.do(t, method, "/scores/"+ref, ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
				if params["id"] != ref {
					t.Errorf("params.id = %v, want %s", params["id"], ref)
				}
			})
		}
	}

	tests := []struct {
		name, query, body string
		status            int
		field             string
	}{
		{"purge not a boolean in body", "", `{"purge":"yes"}`, http.StatusBadRequest, "purge"},
		{"purge not a boolean in query", "?purge=1", "", http.StatusBadRequest, "purge"},
		{"purge in query", "?purge=true", "", http.StatusNoContent, ""},
		{"purge in body", "", `{"purge":false}`, http.StatusNoContent, ""},
		{"body purge wins over a bad query", "?purge=maybe", `{"purge":true}`, http.StatusNoContent, ""},
		{"no purge", "", "", http.StatusNoContent, ""},
	}
	for _, tc := range tests {
		t.Run("DELETE "+tc.name, func(t *testing.T) {
			victim := api.publish(t, `{"scoreUrl":"https://cdn.example/d.sib","scoreId":"victim"}`)
			r := api.do(t, http.MethodDelete, "/scores/victim"+tc.query, tc.body)
			if tc.status == http.StatusBadRequest {
				wantScoreProblem(t, r, tc.status, "publishing/BAD_ARGUMENT", tc.field)
				// A rejected delete leaves the score in place.
				if r := api.do(t, http.MethodDelete, "/scores/victim", ""); r.status != http.StatusNoContent {
					t.Errorf("the score is gone after a rejected delete: %d", r.status)
				}
				return
			}
			if r.status != tc.status || len(r.body) != 0 {
				t.Fatalf("DELETE = %d %q, want %d and no body", r.status, r.body, tc.status)
			}
			for _, ref := range []string{"victim", victim.ID} {
				wantScoreProblem(t, api.do(t, http.MethodGet, "/scores/"+ref, ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
			}
			wantScoreProblem(t, api.do(t, http.MethodDelete, "/scores/"+victim.ID, ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
		})
	}
	if status, ok := api.e.Score("gettable"); !ok || status != "pending" {
		t.Errorf("Score(gettable) = %q, %t", status, ok)
	}
	if _, ok := api.e.Score("victim"); ok {
		t.Error("Score(victim) exists after delete")
	}
	if got := api.e.Stats().Scores; got != 1 {
		t.Errorf("stats scores = %d, want 1", got)
	}
}

func TestScoreStatusProgression(t *testing.T) {
	t.Parallel()
	const delay = 100 * time.Millisecond
	api := newScoreAPI(t, Options{RenderDelay: delay}, true)
	ok := api.publish(t, `{"scoreUrl":"https://cdn.example/ok.sib"}`)
	bad := api.publish(t, `{"scoreUrl":"https://files.cdn.INVALID/bad.sib"}`)
	created := emuWantTime(t, ok.CreatedAt)

	steps := []struct {
		after        time.Duration // since creation
		okStatus     string
		badStatus    string
		sinceCreated time.Duration // updatedAt - createdAt
	}{
		{0, "pending", "pending", 0},
		{delay - time.Millisecond, "pending", "pending", 0},
		{delay, "rendering", "rendering", delay},
		{2*delay - time.Millisecond, "rendering", "rendering", delay},
		{2 * delay, "idle", "error", 2 * delay},
		{time.Hour, "idle", "error", 2 * delay},
	}
	pages := 0
	for _, step := range steps {
		api.clock.Advance(created.Add(step.after).Sub(api.clock.Now()))
		for _, c := range []struct {
			score wireScore
			want  string
		}{{ok, step.okStatus}, {bad, step.badStatus}} {
			got := api.get(t, c.score.ID)
			if got.Status != c.want {
				t.Errorf("after %v: status = %s, want %s", step.after, got.Status, c.want)
			}
			if updated := emuWantTime(t, got.UpdatedAt); !updated.Equal(created.Add(step.sinceCreated)) {
				t.Errorf("after %v: updatedAt = %v, want %v", step.after, updated, created.Add(step.sinceCreated))
			}
			if got.CreatedAt != c.score.CreatedAt {
				t.Errorf("createdAt changed: %s → %s", c.score.CreatedAt, got.CreatedAt)
			}
			if c.want != "idle" {
				if len(got.Renderings) != 0 {
					t.Errorf("status %s with renderings %v", c.want, got.Renderings)
				}
				continue
			}
			if len(got.Renderings) != 1 {
				t.Fatalf("idle score renderings = %v, want one", got.Renderings)
			}
			rendering := got.Renderings[0]
			if rendering.Format != "svg" || rendering.Pages < 1 || rendering.Pages > maxRenderedPages {
				t.Errorf("rendering = %+v, want {format: svg, pages: 1..%d}", rendering, maxRenderedPages)
			}
			pages = rendering.Pages
		}
		if status, _ := api.e.Score(ok.ID); status != step.okStatus {
			t.Errorf("after %v: Score() = %s, want %s", step.after, status, step.okStatus)
		}
	}

	// The page count depends on the file only.
	twin := api.publish(t, `{"scoreUrl":"https://cdn.example/ok.sib","options":{"transpose":true}}`)
	api.clock.Advance(2 * delay)
	if got := api.get(t, twin.ID).Renderings; len(got) != 1 || got[0].Pages != pages {
		t.Errorf("same file rendered to %d pages, then %v", pages, got)
	}
}

func TestScoreStatusRealClock(t *testing.T) {
	t.Parallel()
	const delay = 20 * time.Millisecond
	api := newScoreAPI(t, Options{RenderDelay: delay}, false)
	score := api.publish(t, `{"scoreUrl":"https://cdn.example/real.sib","scoreId":"real"}`)
	var got wireScore
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got = api.get(t, "real"); got.Status == "idle" {
			break
		}
	}
	if score.Status != "pending" || got.Status != "idle" {
		t.Fatalf("status %s, then %s; want pending, then idle", score.Status, got.Status)
	}
	// Whether a poll caught rendering depends on the scheduler; updatedAt does not.
	if d := emuWantTime(t, got.UpdatedAt).Sub(emuWantTime(t, got.CreatedAt)); d != 2*delay {
		t.Errorf("idle %v after creation, want %v", d, 2*delay)
	}

	// Without a delay the creation still answers pending; the next read is final.
	api = newScoreAPI(t, Options{RenderDelay: -1}, false)
	score = api.publish(t, `{"scoreUrl":"https://x.invalid/s.sib"}`)
	if got = api.get(t, score.ID); score.Status != "pending" || got.Status != "error" {
		t.Errorf("without delay: created %s, then %s; want pending, then error", score.Status, got.Status)
	}
}

// scoreListFixture publishes five scores and returns them in the order of the list:
// the first two share one millisecond, so their ids decide; d and e share a file.
func scoreListFixture(t *testing.T) (*scoreAPI, []wireScore) {
	t.Helper()
	api := newScoreAPI(t, Options{RenderDelay: 100 * time.Millisecond}, true)
	var scores []wireScore
	add := func(body string) {
		scores = append(scores, api.publish(t, body))
	}
	add(`{"scoreUrl":"https://cdn.example/a.sib","scoreId":"a"}`)
	add(`{"scoreUrl":"https://cdn.example/b.sib","scoreId":"b"}`)
	api.clock.Advance(time.Millisecond)
	add(`{"scoreUrl":"https://c.invalid/c.sib","scoreId":"c"}`)
	api.clock.Advance(time.Millisecond)
	add(`{"scoreUrl":"https://cdn.example/d.sib","options":{"transpose":true}}`)
	api.clock.Advance(time.Second) // a–d are final now
	add(`{"scoreUrl":"https://cdn.example/d.sib","scoreId":"e"}`)
	// Expected order: createdAt, then id.
	if scores[0].ID > scores[1].ID {
		scores[0], scores[1] = scores[1], scores[0]
	}
	return api, scores
}

func scoreIDs(scores []wireScore, idx ...int) string {
	out := []string{}
	for _, i := range idx {
		out = append(out, scores[i].ID)
	}
	return strings.Join(out, ",")
}

func TestListScores(t *testing.T) {
	t.Parallel()
	api, scores := scoreListFixture(t)
	all := []int{0, 1, 2, 3, 4}
	tests := []struct {
		name, query, body string
		want              []int // indexes into scores, in order
	}{
		{"all", "", "", all},
		{"limit", "?limit=2", "", []int{0, 1}},
		{"offset", "?offset=3", "", []int{3, 4}},
		{"offset and limit", "?offset=1&limit=2", "", []int{1, 2}},
		{"offset past the end", "?offset=5", "", nil},
		{"limit 100", "?limit=100", "", all},
		{"status idle", "?score=" + url.QueryEscape(`{"status":"idle"}`), "", []int{0, 1, 3}},
		{"status error", "?score=" + url.QueryEscape(`{"status":"error"}`), "", []int{2}},
		{"status pending", "?score=" + url.QueryEscape(`{"status":"pending"}`), "", []int{4}},
		{"scoreUrl", "?score=" + url.QueryEscape(`{"scoreUrl":"https://cdn.example/d.sib"}`), "", []int{3, 4}},
		{"alias", "?score=" + url.QueryEscape(`{"scoreId":"c"}`), "", []int{2}},
		{"unknown alias", "?score=" + url.QueryEscape(`{"scoreId":"zzz"}`), "", nil},
		{"two criteria", "?score=" + url.QueryEscape(`{"scoreUrl":"https://cdn.example/d.sib","status":"idle"}`), "", []int{3}},
		{"options subset", "?score=" + url.QueryEscape(`{"options":{"transpose":true}}`), "", []int{3}},
		{"publisher subset", "?score=" + url.QueryEscape(`{"publisher":{"identity":{"user":"alice"}}}`), "", all},
		{"by id", "?score=" + url.QueryEscape(`{"id":"`+scores[3].ID+`"}`), "", []int{3}},
		{"unknown key matches nothing", "?score=" + url.QueryEscape(`{"colour":"red"}`), "", nil},
		{"value of another type matches nothing", "?score=" + url.QueryEscape(`{"status":1}`), "", nil},
		{"empty criteria", "?score=%7B%7D", "", all},
		{"criteria and window", "?score=" + url.QueryEscape(`{"status":"idle"}`) + "&offset=1&limit=1", "", []int{1}},
		{"body of a GET", "", `{"score":{"status":"idle"},"offset":1,"limit":1}`, []int{1}},
		{"body wins over query", "?limit=1&offset=4&score=" + url.QueryEscape(`{"status":"error"}`), `{"score":{"status":"idle"},"offset":0}`, []int{0}},
		{"body wins over a bad query", "?limit=0", `{"limit":2}`, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list := wantScoreOK(t, api.do(t, http.MethodGet, "/scores"+tc.query, tc.body)).scores(t)
			if got, want := scoreIDs(list, seq(len(list))...), scoreIDs(scores, tc.want...); got != want {
				t.Errorf("ids = %v, want %v", got, want)
			}
		})
	}

	t.Run("default limit 50", func(t *testing.T) {
		api := newScoreAPI(t, Options{}, true)
		for i := range 51 {
			api.publish(t, fmt.Sprintf(`{"scoreUrl":"https://cdn.example/%d.sib"}`, i))
			api.clock.Advance(time.Millisecond)
		}
		list := wantScoreOK(t, api.do(t, http.MethodGet, "/scores", "")).scores(t)
		if len(list) != 50 || list[0].ScoreURL != "https://cdn.example/0.sib" {
			t.Fatalf("%d scores from %s, want 50 from the oldest", len(list), list[0].ScoreURL)
		}
		rest := wantScoreOK(t, api.do(t, http.MethodGet, "/scores?offset=50", "")).scores(t)
		if len(rest) != 1 || rest[0].ScoreURL != "https://cdn.example/50.sib" {
			t.Errorf("offset 50 = %v, want the newest", rest)
		}
	})
}

// seq is 0, 1, …, n-1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// badScoreQueries are the invalid windows and criteria of list and count.
var badScoreQueries = []struct {
	name, query, body, field string
}{
	{"limit 0", "?limit=0", "", "limit"},
	{"limit 101", "?limit=101", "", "limit"},
	{"limit negative", "?limit=-1", "", "limit"},
	{"limit not a number", "?limit=ten", "", "limit"},
	{"limit fraction", "?limit=1.5", "", "limit"},
	{"limit empty", "?limit=", "", "limit"},
	{"limit in body a string", "", `{"limit":"10"}`, "limit"},
	{"limit in body a fraction", "", `{"limit":2.5}`, "limit"},
	{"offset negative", "?offset=-1", "", "offset"},
	{"offset not a number", "?offset=x", "", "offset"},
	{"offset huge", "?offset=99999999999999999999", "", "offset"},
	{"offset in body a boolean", "", `{"offset":true}`, "offset"},
	{"score not JSON", "?score=status%3Didle", "", "score"},
	{"score an array", "?score=" + url.QueryEscape(`[{"status":"idle"}]`), "", "score"},
	{"score a string", "?score=" + url.QueryEscape(`"idle"`), "", "score"},
	{"score JSON null text", "?score=null", "", "score"},
	{"score in body a string", "", `{"score":"idle"}`, "score"},
	{"body not an object", "", `[1]`, "body"},
}

func TestListScoresBadArguments(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	for _, tc := range badScoreQueries {
		t.Run(tc.name, func(t *testing.T) {
			wantScoreProblem(t, api.do(t, http.MethodGet, "/scores"+tc.query, tc.body), http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
		})
	}
}

func TestCountScores(t *testing.T) {
	t.Parallel()
	api, _ := scoreListFixture(t)
	tests := []struct {
		name, query, body string
		want              int
	}{
		{"all", "", "", 5},
		{"criteria in body", "", `{"score":{"status":"idle"}}`, 3},
		{"criteria in query", "?score=" + url.QueryEscape(`{"status":"idle"}`), "", 3},
		{"body wins", "?score=" + url.QueryEscape(`{"status":"idle"}`), `{"score":{"status":"error"}}`, 1},
		{"alias", "", `{"score":{"scoreId":"a"}}`, 1},
		{"unknown key", "", `{"score":{"nope":"x"}}`, 0},
		{"offset", "", `{"offset":2}`, 3},
		{"offset past the end", "", `{"offset":9}`, 0},
		{"limit", "", `{"limit":2}`, 2},
		{"limit beyond the rest", "", `{"offset":3,"limit":4}`, 2},
		{"criteria, offset and limit", "?offset=1&limit=1", `{"score":{"status":"idle"}}`, 1},
	}
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		for _, tc := range tests {
			t.Run(method+" "+tc.name, func(t *testing.T) {
				r := wantScoreOK(t, api.do(t, method, "/scores/count"+tc.query, tc.body))
				if got, want := string(r.body), fmt.Sprintf(`{"count":%d}`, tc.want); got != want {
					t.Errorf("count = %s, want %s", got, want)
				}
			})
		}
		for _, tc := range badScoreQueries {
			t.Run(method+" "+tc.name, func(t *testing.T) {
				wantScoreProblem(t, api.do(t, method, "/scores/count"+tc.query, tc.body), http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
			})
		}
	}

	// DELETE has no count route: "count" is taken as a score reference.
	wantScoreProblem(t, api.do(t, http.MethodDelete, "/scores/count", ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
	if got := api.e.Stats().Requests["GET "+api.e.publishingPath+"/scores/count"]; got == 0 {
		t.Errorf("GET /scores/count was not served by the count route: %v", api.e.Stats().Requests)
	}
}

func TestScoresReset(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	api.publish(t, `{"scoreUrl":"https://cdn.example/r.sib","scoreId":"kept"}`)
	view := wantScoreOK(t, api.do(t, http.MethodPost, "/scores/kept/view", "")).view(t).ViewerURL
	api.e.Reset()
	if got := api.e.Stats().Scores; got != 0 {
		t.Errorf("scores after reset = %d", got)
	}
	if _, ok := api.e.Score("kept"); ok {
		t.Error("score survives reset")
	}
	wantScoreProblem(t, api.call(t, http.MethodGet, view, "", ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
}

// TestRestoreScores: a restore puts back the scores of the backup with their UUIDs,
// aliases and creation times, and removes those created since; an alias is held by
// the score that held it in the backup.
func TestRestoreScores(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	kept := api.publish(t, `{"scoreUrl":"https://cdn.example/kept.sib","scoreId":"kept"}`)
	older := api.publish(t, `{"scoreUrl":"https://cdn.example/v1.sib","scoreId":"moved"}`)
	backup := api.e.BackupScores()

	api.clock.Advance(time.Second)
	api.do(t, http.MethodDelete, "/scores/"+older.ID, "").wantStatus(t, http.StatusNoContent)
	newer := api.publish(t, `{"scoreUrl":"https://cdn.example/v2.sib","scoreId":"moved"}`)
	added := api.publish(t, `{"scoreUrl":"https://cdn.example/added.sib"}`)

	api.e.RestoreScores(backup)
	for _, gone := range []string{newer.ID, added.ID} {
		wantScoreProblem(t, api.do(t, http.MethodGet, "/scores/"+gone, ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
	}
	if got := api.get(t, "moved"); got.ID != older.ID || got.ScoreURL != older.ScoreURL || got.CreatedAt != older.CreatedAt {
		t.Errorf("after the restore the alias holds %+v, want the backup's score %+v", got, older)
	}
	if got := api.get(t, kept.ID); got.CreatedAt != kept.CreatedAt {
		t.Errorf("the kept score's createdAt changed: %s → %s", kept.CreatedAt, got.CreatedAt)
	}
	if n := api.e.scores.count(); n != 2 {
		t.Errorf("after the restore the platform holds %d scores, want 2", n)
	}
}
