package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// withReadings switches readings on through the faults control request, as a test
// or a user does on a running emulator.
func (et *emuTester) withReadings(names ...string) {
	et.t.Helper()
	var r Readings
	for _, n := range names {
		if err := r.Set(n); err != nil {
			et.t.Fatal(err)
		}
	}
	body, _ := json.Marshal(map[string]any{"readings": r})
	et.control(http.MethodPost, "faults", string(body)).wantStatus(et.t, 200)
}

// publishN publishes n scores with token.
func (et *emuTester) publishN(token string, n int) {
	et.t.Helper()
	for i := range n {
		h := http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}
		et.do(http.MethodPost, et.e.PublishingURL(et.srv.URL)+"/scores", h,
			strings.NewReader(`{"scoreUrl":"https://cdn.example/`+string(rune('a'+i))+`.sib"}`)).wantStatus(et.t, 200)
	}
}

// TestReadingsOfListParameters: where the list and the count read their parameters
// under each reading (contract §V1, §V2), and the count's method (§V3).
func TestReadingsOfListParameters(t *testing.T) {
	t.Parallel()
	list := func(et *emuTester, token, query, body string) int {
		h := http.Header{"Authorization": {"Bearer " + token}}
		var r io.Reader
		if body != "" {
			h.Set("Content-Type", "application/json")
			r = strings.NewReader(body)
		}
		res := et.do(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores?"+query, h, r)
		return len(emuArray(t, res.wantJSON(t, 200, "application/json")["scores"]))
	}
	for name, tc := range map[string]struct {
		readings             []string
		fromQuery, fromBody  int // scores listed with limit=2 in the query, or in the body
		countPost, countGet  int // statuses
		countBodyLimitResult int
	}{
		"contract":          {nil, 2, 2, 200, 200, 2},
		"query params only": {[]string{"queryParamsOnly"}, 2, 5, 200, 200, 5},
		"body params only":  {[]string{"bodyParamsOnly"}, 5, 2, 200, 200, 2},
		"count by GET only": {[]string{"countGetOnly"}, 2, 2, 405, 200, 2},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			et := newEmuTester(t, Options{})
			token := et.platformLogin(DefaultUserName, DefaultUserPassword)
			et.publishN(token, 5)
			et.withReadings(tc.readings...)
			if n := list(et, token, "limit=2", ""); n != tc.fromQuery {
				t.Errorf("limit in the query: %d scores, want %d", n, tc.fromQuery)
			}
			if n := list(et, token, "", `{"limit":2}`); n != tc.fromBody {
				t.Errorf("limit in the body: %d scores, want %d", n, tc.fromBody)
			}
			h := http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}
			post := et.do(http.MethodPost, et.e.PublishingURL(et.srv.URL)+"/scores/count", h, strings.NewReader(`{"limit":2}`))
			if post.status != tc.countPost {
				t.Errorf("POST count: %d, want %d", post.status, tc.countPost)
			}
			if post.status == 405 && post.header.Get("Allow") != "GET" {
				t.Errorf("405 without Allow: GET: %v", post.header)
			}
			get := et.do(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores/count", h, strings.NewReader(`{"limit":2}`))
			if n := get.wantJSON(t, tc.countGet, "application/json")["count"]; n != float64(tc.countBodyLimitResult) {
				t.Errorf("GET count with limit 2 in the body: %v, want %d", n, tc.countBodyLimitResult)
			}
		})
	}
}

// TestReadingNewestFirst: under the newestFirst reading (contract §V9) the list is
// the contract's order reversed, and the count is the same.
func TestReadingNewestFirst(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	et.publishN(token, 5)
	ids := func() []string {
		h := http.Header{"Authorization": {"Bearer " + token}}
		res := et.do(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores", h, nil)
		var out []string
		for _, s := range emuArray(t, res.wantJSON(t, 200, "application/json")["scores"]) {
			out = append(out, emuString(t, emuObject(t, s)["id"]))
		}
		return out
	}
	oldest := ids()
	et.withReadings("newestFirst")
	newest := ids()
	slices.Reverse(newest)
	if len(oldest) != 5 || !slices.Equal(oldest, newest) {
		t.Errorf("newest first is not the contract's order reversed:\n%v\n%v", oldest, newest)
	}
}

// TestReadingsOfAnswers: the answers each other reading writes (contract §V5–§V8),
// and that the contract's answers stay as they were with every switch off.
func TestReadingsOfAnswers(t *testing.T) {
	t.Parallel()
	login := func(et *emuTester) *emuResponse {
		return et.adminForm(url.Values{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}})
	}
	t.Run("bare login token", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		et.withReadings("bareLoginToken")
		res := login(et)
		if res.status != 200 || !strings.HasPrefix(res.header.Get("Content-Type"), "text/plain") || !strings.HasPrefix(string(res.body), "as-") {
			t.Fatalf("got %d %s %q", res.status, res.header.Get("Content-Type"), res.body)
		}
		et.admin(http.MethodGet, "/checksession", string(res.body), nil).wantStatus(t, 200)
	})
	t.Run("JSON string login token", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		et.withReadings("jsonStringLoginToken")
		var token string
		login(et).decode(t, &token)
		et.admin(http.MethodGet, "/checksession", token, nil).wantStatus(t, 200)
	})
	t.Run("delete answers the score", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		token := et.platformLogin(DefaultUserName, DefaultUserPassword)
		et.publishN(token, 2)
		scores := emuArray(t, et.bearer(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores", token).wantJSON(t, 200, "application/json")["scores"])
		first, second := emuString(t, emuObject(t, scores[0])["id"]), emuString(t, emuObject(t, scores[1])["id"])
		et.bearer(http.MethodDelete, et.e.PublishingURL(et.srv.URL)+"/scores/"+first, token).wantStatus(t, 204)
		et.withReadings("deleteAnswersScore")
		body := et.bearer(http.MethodDelete, et.e.PublishingURL(et.srv.URL)+"/scores/"+second, token).wantJSON(t, 200, "application/json")
		if emuString(t, emuObject(t, body["score"])["id"]) != second {
			t.Errorf("the answer is not the deleted score: %v", body)
		}
	})
	t.Run("CTMS problems", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		token := et.platformLogin(DefaultUserName, DefaultUserPassword)
		et.withReadings("ctmsErrors")
		res := et.bearer(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores?limit=0", token)
		body := res.wantJSON(t, 400, "application/vnd.avid.problem+json")
		if body["code"] != "avid.publishing/CTMS/BAD_ARGUMENT" || emuObject(t, body["params"])["parameterName"] != "limit" {
			t.Errorf("got %v", body)
		}
	})
	t.Run("text and HTML errors", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		token := et.platformLogin(DefaultUserName, DefaultUserPassword)
		et.withReadings("textErrors")
		res := et.bearer(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores/missing", token)
		if res.status != 404 || !strings.HasPrefix(res.header.Get("Content-Type"), "text/plain") || !strings.Contains(string(res.body), "does not exist") {
			t.Errorf("404: %d %s %q", res.status, res.header.Get("Content-Type"), res.body)
		}
		et.control(http.MethodPost, "faults", `{"failRate":1,"status":500,"readings":{"textErrors":true}}`).wantStatus(t, 200)
		res = et.bearer(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/core/health", token)
		if res.status != 500 || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") || !strings.Contains(string(res.body), "<html>") {
			t.Errorf("500: %d %s %q", res.status, res.header.Get("Content-Type"), res.body)
		}
	})
	t.Run("single links, lowercase bearer, charset, offsets, iamToken, envelope", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		et.withReadings("singleLinks", "lowercaseBearer", "charsetMediaTypes", "timeOffsets", "iamTokenExpiry", "listEnvelope")
		grant := et.grant(url.Values{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {DefaultUserPassword}})
		if ct := grant.header.Get("Content-Type"); ct != "application/json;charset=UTF-8" {
			t.Errorf("Content-Type %q", ct)
		}
		var g map[string]any
		grant.decode(t, &g)
		token := emuString(t, g["access_token"])
		if g["token_type"] != "bearer" {
			t.Errorf("token_type %v", g["token_type"])
		}
		auth := et.do(http.MethodGet, "/auth", nil, nil)
		var root map[string]any
		auth.decode(t, &root)
		if _, single := emuObject(t, root["_links"])["auth:identity-providers"].(map[string]any); !single {
			t.Errorf("auth:identity-providers is not a single object: %s", auth.body)
		}
		info := et.bearer(http.MethodGet, tokenInfoPath, token)
		var doc map[string]any
		info.decode(t, &doc)
		expires := emuString(t, emuObject(t, doc["iamToken"])["expiresAt"])
		if _, has := doc["expiresAt"]; has || !strings.HasSuffix(expires, "+02:00") {
			t.Errorf("token information: %s", info.body)
		}
		if _, err := time.Parse(time.RFC3339, expires); err != nil {
			t.Error(err)
		}
		et.publishN(token, 1)
		var list map[string]any
		et.bearer(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores", token).decode(t, &list)
		for _, k := range []string{"scores", "total", "offset", "limit", "_links"} {
			if _, ok := list[k]; !ok {
				t.Errorf("the list envelope lacks %s", k)
			}
		}
	})
}

// d3 reports whether t is about three hours behind now.
func d3(t time.Time) bool { return time.Until(t) < -2*time.Hour }

// TestReadingsFoundFromTheSpecification: the readings added by walking the
// specification's "not shown" endpoint by endpoint answer as WIRE.md says.
func TestReadingsFoundFromTheSpecification(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	et.publishN(token, 2)
	et.withReadings("forbiddenWhenExpired", "bareCount", "textHealth", "minimalPublishAnswer", "bareBodies")
	pub := et.e.PublishingURL(et.srv.URL)
	h := http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}
	if res := et.do(http.MethodPost, pub+"/scores/count", h, strings.NewReader(`{}`)); strings.TrimSpace(string(res.body)) != "2" {
		t.Errorf("bare count: %d %s", res.status, res.body)
	}
	if res := et.do(http.MethodGet, pub+"/core/health", h, nil); res.status != 200 || string(res.body) != "OK" ||
		res.header.Get("Content-Type") != "text/plain" {
		t.Errorf("text health: %d %v %s", res.status, res.header, res.body)
	}
	res := et.do(http.MethodPost, pub+"/scores", h, strings.NewReader(`{"scoreUrl":"https://cdn.example/m.sib"}`))
	var published map[string]any
	res.decode(t, &published)
	if len(published) != 1 || published["id"] == nil {
		t.Errorf("minimal, bare publish answer: %s", res.body)
	}
	list := et.do(http.MethodGet, pub+"/scores", h, nil)
	if !strings.HasPrefix(strings.TrimSpace(string(list.body)), "[") {
		t.Errorf("bare list: %s", list.body)
	}
	got := et.do(http.MethodGet, pub+"/scores/"+emuString(t, published["id"]), h, nil)
	var score map[string]any
	got.decode(t, &score)
	if score["id"] != published["id"] || score["scoreUrl"] != "https://cdn.example/m.sib" {
		t.Errorf("bare score: %s", got.body)
	}
	et.e.Expire(true, true)
	if res := et.do(http.MethodGet, pub+"/scores", h, nil); res.status != http.StatusForbidden {
		t.Errorf("an expired token: %d, want 403", res.status)
	}
	session := et.do(http.MethodGet, et.e.AdminURL(et.srv.URL)+"/externalauth", http.Header{"token": {"expired-or-unknown"}}, nil)
	if session.status != http.StatusForbidden {
		t.Errorf("an unknown session: %d, want 403", session.status)
	}
}

// TestReadingsOfIssue36: the readings of the sixth round of field reports answer as
// WIRE.md says.
func TestReadingsOfIssue36(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	pub := et.e.PublishingURL(et.srv.URL)
	h := http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}

	et.withReadings("omitEmptyScoreMembers")
	if res := et.do(http.MethodGet, pub+"/scores", h, nil); strings.TrimSpace(string(res.body)) != "{}" {
		t.Errorf("omitEmptyScoreMembers, an empty page: %d %s", res.status, res.body)
	}
	if res := et.do(http.MethodPost, pub+"/scores/count", h, strings.NewReader(`{}`)); strings.TrimSpace(string(res.body)) != "{}" {
		t.Errorf("omitEmptyScoreMembers, a count of 0: %d %s", res.status, res.body)
	}
	res := et.do(http.MethodPost, pub+"/scores", h, strings.NewReader(`{"scoreUrl":"https://cdn.example/e.sib"}`))
	if body := string(res.body); strings.Contains(body, "transpose") || strings.Contains(body, "renderings") || !strings.Contains(body, `"id"`) {
		t.Errorf("omitEmptyScoreMembers, a new score: %s", body)
	}

	et.withReadings("spaceTimestamps")
	res = et.do(http.MethodGet, pub+"/scores", h, nil)
	if !regexp.MustCompile(`"createdAt":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00"`).Match(res.body) {
		t.Errorf("spaceTimestamps: %s", res.body)
	}

	et.withReadings("templatedLinks")
	res = et.do(http.MethodGet, et.srv.URL+"/auth", nil, nil)
	if !strings.Contains(string(res.body), `"templated":true`) {
		t.Errorf("templatedLinks, no link marked templated: %s", res.body)
	}
	if !strings.Contains(string(res.body), `{?fields}`) || strings.Contains(string(res.body), `/auth{?fields}`) {
		t.Errorf("templatedLinks, self stays plain and the others are templates: %s", res.body)
	}

	et.withReadings("seeOtherWrites")
	noFollow := *et.srv.Client()
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	write := func(method, target, token string) *emuResponse {
		req := et.request(method, target, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return roundTrip(t, &noFollow, req)
	}
	res = write(http.MethodPost, et.srv.URL+"/auth/tokens/current/extension", token)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != et.srv.URL+"/auth/tokens/current" {
		t.Errorf("seeOtherWrites, the extension: %d %v", res.status, res.header)
	}
	other := et.platformLogin(DefaultUserName, DefaultUserPassword)
	res = write(http.MethodDelete, et.srv.URL+"/auth/tokens/current", other)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != et.srv.URL+"/auth" {
		t.Errorf("seeOtherWrites, the removal: %d %v", res.status, res.header)
	}
	if res := et.do(http.MethodGet, et.srv.URL+"/auth/tokens/current", http.Header{"Authorization": {"Bearer " + other}}, nil); res.status != http.StatusUnauthorized {
		t.Errorf("the token removed with a 303: %d", res.status)
	}

	et.withReadings("refuseGetBody")
	if res := et.do(http.MethodGet, pub+"/scores", h, strings.NewReader(`{"limit": 1}`)); res.status != http.StatusForbidden ||
		!strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
		t.Errorf("refuseGetBody, a GET with a body: %d %v", res.status, res.header)
	}
	if res := et.do(http.MethodGet, pub+"/scores?limit=1", h, nil); res.status != http.StatusOK {
		t.Errorf("refuseGetBody, a GET without a body: %d", res.status)
	}

	et.withReadings("deleteAccepted")
	res = et.do(http.MethodPost, pub+"/scores", h, strings.NewReader(`{"scoreUrl":"https://cdn.example/d.sib","scoreId":"d"}`))
	if res.status != http.StatusOK {
		t.Fatalf("publish: %d %s", res.status, res.body)
	}
	if res := et.do(http.MethodDelete, pub+"/scores/d", h, nil); res.status != http.StatusAccepted {
		t.Errorf("deleteAccepted: %d, want 202", res.status)
	}
	if res := et.do(http.MethodGet, pub+"/scores/d", h, nil); res.status != http.StatusOK {
		t.Errorf("a score whose delete was accepted, at once: %d, want 200", res.status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for et.do(http.MethodGet, pub+"/scores/d", h, nil).status != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("the score whose delete was accepted is still there after 5 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestExponentForm(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"100": "1E+2", "250": "2.5E+2", "1200": "1.2E+3", "10": "1E+1", "-3000": "-3E+3",
		"389": "389.0E0", "0": "0.0E0", "-7": "-7.0E0",
		"1.5": "1.5", "1E+2": "1E+2", "99999999999999999999": "99999999999999999999",
	} {
		if got := exponentForm(in); got != want {
			t.Errorf("exponentForm(%s) = %s, want %s", in, got, want)
		}
	}
	body := `{"a": 100, "b": "100 and \"200\" \\", "c": [5, -20, 1.5, true, null], "d": {"e": 0}}`
	want := `{"a": 1E+2, "b": "100 and \"200\" \\", "c": [5.0E0, -2E+1, 1.5, true, null], "d": {"e": 0.0E0}}`
	if got := string(exponentIntegers([]byte(body))); got != want {
		t.Errorf("exponentIntegers:\n got %s\nwant %s", got, want)
	}
}

// TestReadingExponentIntegers: under the reading, the count and a problem's status are
// written with an exponent, as the same numbers.
func TestReadingExponentIntegers(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	api.publish(t, `{"scoreUrl":"https://cdn.example/exp.sib"}`)
	api.withReadings("exponentIntegers")
	count := api.do(t, http.MethodPost, "/scores/count", `{}`)
	if count.status != http.StatusOK || !strings.Contains(string(count.body), `"count":1.0E0`) {
		t.Errorf("count: %d %s", count.status, count.body)
	}
	var doc map[string]any
	if err := json.Unmarshal(count.body, &doc); err != nil || doc["count"] != 1.0 {
		t.Errorf("count is not JSON holding 1: %v %v", doc, err)
	}
	missing := api.do(t, http.MethodGet, "/scores/nothing-here", "")
	if missing.status != http.StatusNotFound || !strings.Contains(string(missing.body), `"status":404.0E0`) {
		t.Errorf("problem: %d %s", missing.status, missing.body)
	}
}

// TestReadingTopLevelScoreID: under the reading, publish, get and list answer the
// alias as a top-level scoreId and none under publisher; the list's scoreId criterion
// still finds the score by it.
func TestReadingTopLevelScoreID(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	api.withReadings("topLevelScoreId")
	answers := map[string]*emuResponse{
		"publish": api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"https://cdn.example/top.sib","scoreId":"top-alias"}`),
		"get":     api.do(t, http.MethodGet, "/scores/top-alias", ""),
		"list":    api.do(t, http.MethodGet, `/scores?score={"scoreId":"top-alias"}`, ""),
	}
	for call, answer := range answers {
		body := string(answer.body)
		if answer.status != http.StatusOK || !strings.Contains(body, `"scoreId":"top-alias"`) ||
			strings.Count(body, `"scoreId"`) != 1 || strings.Contains(body, `"publisher":{"scoreId"`) {
			t.Errorf("%s: %d %s", call, answer.status, body)
		}
		var doc map[string]any
		if err := json.Unmarshal(answer.body, &doc); err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		score, _ := doc["score"].(map[string]any)
		if scores, ok := doc["scores"].([]any); ok && len(scores) == 1 {
			score, _ = scores[0].(map[string]any)
		}
		if score == nil || score["scoreId"] != "top-alias" {
			t.Errorf("%s: the score has no top-level scoreId: %s", call, body)
		}
	}
}

// noRedirects is a client of et's listener that follows no redirect, so that a test
// sees the redirect itself.
func (et *emuTester) noRedirects() *http.Client {
	c := *et.srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// TestReadingAuthRootSlash: GET /auth answers 301 to /auth/, which serves the
// discovery document; without the reading /auth/ is not served.
func TestReadingAuthRootSlash(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	c := et.noRedirects()
	if res := roundTrip(t, c, et.request(http.MethodGet, "/auth/", nil)); res.status != http.StatusNotFound {
		t.Errorf("GET /auth/ without the reading: %d, want 404", res.status)
	}
	et.withReadings("authRootSlash")
	res := roundTrip(t, c, et.request(http.MethodGet, "/auth", nil))
	if res.status != http.StatusMovedPermanently || res.header.Get("Location") != et.srv.URL+"/auth/" {
		t.Fatalf("GET /auth: %d to %q, want 301 to %s/auth/", res.status, res.header.Get("Location"), et.srv.URL)
	}
	doc := roundTrip(t, c, et.request(http.MethodGet, "/auth/", nil)).wantJSON(t, 200, "application/hal+json")
	links := emuObject(t, doc["_links"])
	emuWantKeys(t, links, "self", "auth:identity-providers", "auth:token")
	if self := emuString(t, emuObject(t, links["self"])["href"]); self != et.srv.URL+"/auth/" {
		t.Errorf("self link %q, want %s/auth/", self, et.srv.URL)
	}
}

// TestReadingLoginRedirects: a call without a live session is answered 302 to the
// administrator API's login page, not 401; a live session is served as ever.
func TestReadingLoginRedirects(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.withReadings("loginRedirects")
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	c := et.noRedirects()
	call := func(token string) *emuResponse {
		req := et.request(http.MethodGet, et.e.AdminURL(et.srv.URL)+"/externalauth", nil)
		req.Header.Set("token", token)
		return roundTrip(t, c, req)
	}
	if res := call(session); res.status != http.StatusOK {
		t.Errorf("a live session: %d, want 200", res.status)
	}
	et.control(http.MethodPost, "expire", `{"sessions": true}`).wantStatus(t, 200)
	res := call(session)
	if res.status != http.StatusFound || res.header.Get("Location") != et.e.AdminURL(et.srv.URL)+"/login" {
		t.Errorf("an expired session: %d to %q, want 302 to the login page", res.status, res.header.Get("Location"))
	}
	if res := call(""); res.status != http.StatusFound {
		t.Errorf("no session: %d, want 302", res.status)
	}
}

// TestReadingBracketQueryObjects: the criteria are read in bracket form, nested too;
// the JSON-text form is answered 400 naming the parameter; a JSON body still counts.
func TestReadingBracketQueryObjects(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	pub := et.e.PublishingURL(et.srv.URL)
	h := http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}
	et.do(http.MethodPost, pub+"/scores", h, strings.NewReader(`{"scoreUrl":"https://cdn.example/a.sib","scoreId":"al"}`)).wantStatus(t, 200)
	et.publishN(token, 2)
	et.withReadings("bracketQueryObjects")
	list := func(query, body string) *emuResponse {
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		return et.do(http.MethodGet, pub+"/scores?"+query, h, r)
	}
	for _, tc := range []struct {
		query, body string
		want        int
	}{
		{"score%5BscoreUrl%5D=https%3A%2F%2Fcdn.example%2Fa.sib", "", 2},
		{"score[publisher][scoreId]=al", "", 1},
		{"score[scoreId]=al", "", 1},
		{"score[status]=nothing", "", 0},
		{"", `{"score":{"scoreId":"al"}}`, 1},
		{"limit=1&offset=1", "", 1},
	} {
		if n := len(emuArray(t, list(tc.query, tc.body).wantJSON(t, 200, "application/json")["scores"])); n != tc.want {
			t.Errorf("%s %s: %d scores, want %d", tc.query, tc.body, n, tc.want)
		}
	}
	res := list("score="+url.QueryEscape(`{"scoreId":"al"}`), "")
	res.wantProblem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "score")
	if !strings.Contains(string(res.body), "request/query/score must be object") {
		t.Errorf("the 400 says %s", res.body)
	}
	count := et.do(http.MethodGet, pub+"/scores/count?score[scoreId]=al", h, nil).wantJSON(t, 200, "application/json")
	if count["count"] != float64(1) {
		t.Errorf("GET count in bracket form: %v, want 1", count["count"])
	}
}

// TestReadingNormalizedScoreURL: under the reading, every answer carries the scoreUrl
// in RFC 3986 normal form, and a scoreUrl criterion in another spelling of it finds
// the score.
func TestReadingNormalizedScoreURL(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	api.withReadings("normalizedScoreUrl")
	const sent = "HTTPS://Scores.Example.COM:443/x/../sn/Caf%c3%a9.sib?v=%2f1#Top"
	const normal = "https://scores.example.com/sn/Caf%C3%A9.sib?v=%2F1#Top"
	publish := api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"`+sent+`","scoreId":"normal-alias"}`)
	answers := map[string]*emuResponse{
		"publish":        publish,
		"get":            api.do(t, http.MethodGet, "/scores/normal-alias", ""),
		"list":           api.do(t, http.MethodGet, "/scores", ""),
		"list by sent":   api.do(t, http.MethodGet, "/scores?score="+url.QueryEscape(`{"scoreUrl":"`+sent+`"}`), ""),
		"list by normal": api.do(t, http.MethodGet, "/scores?score="+url.QueryEscape(`{"scoreUrl":"`+normal+`"}`), ""),
	}
	for call, answer := range answers {
		if answer.status != http.StatusOK || !strings.Contains(string(answer.body), `"scoreUrl":"`+normal+`"`) {
			t.Errorf("%s: %d %s", call, answer.status, answer.body)
		}
	}
	for in, want := range map[string]string{
		"http://A.Example:80":             "http://a.example/",
		"https://a.example:8443/a/./b/..": "https://a.example:8443/a/",
		"https://u@a.example/%7e":         "https://u@a.example/%7E",
		"https://[2001:DB8::1]:443/a":     "https://[2001:db8::1]/a",
	} {
		if got := normalScoreURL(in); got != want {
			t.Errorf("normalScoreURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadingSummaryListings: under the reading, the listing gives each score without
// options and renderings, and GET /scores/{id} gives the whole score.
func TestReadingSummaryListings(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	api.withReadings("summaryListings")
	api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"https://cdn.example/sum.sib","scoreId":"sum","options":{"transpose":true}}`)
	list := api.do(t, http.MethodGet, "/scores", "")
	body := string(list.body)
	if list.status != http.StatusOK || !strings.Contains(body, `"id"`) || !strings.Contains(body, `"status"`) ||
		strings.Contains(body, `"options"`) || strings.Contains(body, `"renderings"`) {
		t.Errorf("list: %d %s", list.status, body)
	}
	get := api.do(t, http.MethodGet, "/scores/sum", "")
	if get.status != http.StatusOK || !strings.Contains(string(get.body), `"options":{"transpose":true}`) ||
		!strings.Contains(string(get.body), `"renderings"`) {
		t.Errorf("get: %d %s", get.status, get.body)
	}
}
