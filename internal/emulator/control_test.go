package emulator

// Contract section G (emulator-only control surface) and the fault rules of §0.
// Helpers are in helpers_test.go.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestControlStatsShape(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	body := et.control(http.MethodGet, "stats", "").wantJSON(t, 200, "application/json")
	want := map[string]any{
		"requests":     map[string]any{},
		"logins":       map[string]any{"admin": float64(0), "oauth": float64(0)},
		"liveSessions": float64(0),
		"liveTokens":   float64(0),
		"scores":       float64(0),
		"views":        float64(0),
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("fresh stats = %v, want %v", body, want)
	}
}

func TestControlStatsCounts(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	et.adminLogin(DefaultViewerName, DefaultViewerPassword)
	et.admin(http.MethodGet, "/checksession", session, nil).wantStatus(t, 200)
	et.do(http.MethodGet, "/auth", nil, nil).wantStatus(t, 200)
	et.do(http.MethodGet, "/auth", nil, nil).wantStatus(t, 200)
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	et.platformLogin(DefaultViewerName, DefaultViewerPassword)
	et.do(http.MethodGet, "/no/such/thing", nil, nil).wantStatus(t, 404)
	et.control(http.MethodGet, "faults", "").wantStatus(t, 200) // control: not counted

	s := et.stats()
	wantRequests := map[string]int{
		"POST /api/v1/login":             2,
		"GET /api/v1/checksession":       1,
		"GET /auth":                      2,
		"POST /auth/oauth2/ropc/default": 2,
		"GET (unmatched)":                1,
	}
	if !reflect.DeepEqual(s.Requests, wantRequests) {
		t.Errorf("requests = %v, want %v", s.Requests, wantRequests)
	}
	if s.TotalRequests() != 8 {
		t.Errorf("TotalRequests = %d, want 8", s.TotalRequests())
	}
	if want := map[string]int{"admin": 2, "oauth": 2}; !reflect.DeepEqual(s.Logins, want) {
		t.Errorf("logins = %v, want %v", s.Logins, want)
	}
	if s.LiveSessions != 2 || s.LiveTokens != 2 {
		t.Errorf("live sessions %d, tokens %d; want 2, 2", s.LiveSessions, s.LiveTokens)
	}

	// Logout and removal bring the live counts down; logins stay counted.
	et.admin(http.MethodGet, "/logout", session, nil).wantStatus(t, 200)
	et.bearer(http.MethodDelete, "/auth/tokens/current", token).wantStatus(t, 204)
	s = et.stats()
	if s.LiveSessions != 1 || s.LiveTokens != 1 || s.Logins["admin"] != 2 || s.Logins["oauth"] != 2 {
		t.Errorf("after logout and removal: %+v", s)
	}
	if s.Requests["GET /api/v1/logout"] != 1 || s.Requests["DELETE /auth/tokens/current"] != 1 {
		t.Errorf("requests = %v", s.Requests)
	}
	// The Go API and the wire agree.
	if api := et.e.Stats(); !reflect.DeepEqual(api, s) {
		t.Errorf("Stats() = %+v, wire %+v", api, s)
	}
}

func TestControlReset(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	et.admin(http.MethodPut, "/externalauth", session,
		strings.NewReader(`{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1"}`)).wantStatus(t, 200)
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	et.control(http.MethodPost, "faults", `{"latencyMs": 1}`).wantStatus(t, 200)

	et.control(http.MethodPost, "reset", "").wantStatus(t, 200)

	want := Stats{Requests: map[string]int{}, Logins: map[string]int{"admin": 0, "oauth": 0}}
	if s := et.stats(); !reflect.DeepEqual(s, want) {
		t.Errorf("stats after reset = %+v, want %+v", s, want)
	}
	if f := et.control(http.MethodGet, "faults", "").wantJSON(t, 200, "application/json"); f["latencyMs"] != float64(0) {
		t.Errorf("faults after reset = %v, want none", f)
	}
	et.admin(http.MethodGet, "/checksession", session, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	et.bearer(http.MethodGet, "/auth/tokens/current", token).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
	session = et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	got := et.admin(http.MethodGet, "/externalauth", session, nil).wantJSON(t, 200, "application/json")
	if want := map[string]any{"domainName": "", "externalAuthenticationEnabled": false}; !reflect.DeepEqual(got, want) {
		t.Errorf("settings after reset = %v, want %v", got, want)
	}
}

func TestControlExpire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                   string
		body                   string
		tokensDie, sessionsDie bool
	}{
		{"empty body expires both", "", true, true},
		{"both", `{"tokens": true, "sessions": true}`, true, true},
		{"tokens only", `{"tokens": true}`, true, false},
		{"sessions only", `{"sessions": true}`, false, true},
		{"neither", `{}`, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			et := newEmuTester(t, Options{})
			session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
			token := et.platformLogin(DefaultUserName, DefaultUserPassword)

			et.control(http.MethodPost, "expire", tc.body).wantStatus(t, 200)

			s := et.stats()
			if tc.sessionsDie {
				et.admin(http.MethodGet, "/checksession", session, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
			} else {
				et.admin(http.MethodGet, "/checksession", session, nil).wantStatus(t, 200)
			}
			if tc.tokensDie {
				et.bearer(http.MethodGet, "/auth/tokens/current", token).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
				et.bearer(http.MethodPost, "/auth/tokens/current/extension", token).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
			} else {
				et.bearer(http.MethodGet, "/auth/tokens/current", token).wantStatus(t, 200)
			}
			if want := map[bool]int{true: 0, false: 1}; s.LiveSessions != want[tc.sessionsDie] || s.LiveTokens != want[tc.tokensDie] {
				t.Errorf("live sessions %d, tokens %d after expire", s.LiveSessions, s.LiveTokens)
			}
			// Re-authentication works.
			et.admin(http.MethodGet, "/checksession", et.adminLogin(DefaultAdminName, DefaultAdminPassword), nil).wantStatus(t, 200)
			et.bearer(http.MethodGet, "/auth/tokens/current", et.platformLogin(DefaultUserName, DefaultUserPassword)).wantStatus(t, 200)
		})
	}
	t.Run("bad body", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		et.control(http.MethodPost, "expire", `{"tokens": "yes"}`).wantProblem(t, 400, "emulator/BAD_ARGUMENT", "body")
	})
}

func TestFaultsFailRate(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)

	set := et.control(http.MethodPost, "faults", `{"failRate": 1, "status": 503, "retryAfter": 2}`).wantJSON(t, 200, "application/json")
	want := map[string]any{"failRate": float64(1), "status": float64(503), "retryAfter": float64(2), "latencyMs": float64(0),
		"rateLimitPerSecond": float64(0), "dropRate": float64(0)}
	if !reflect.DeepEqual(set, want) {
		t.Errorf("POST faults = %v, want %v", set, want)
	}

	// Every platform area fails with its own namespace, before taking effect.
	for _, tc := range []struct {
		name string
		res  *emuResponse
		code string
	}{
		{"admin PUT", et.admin(http.MethodPut, "/externalauth", session,
			strings.NewReader(`{"domainName": "CORP", "externalAuthenticationEnabled": true}`)), "admin/SERVICE_UNAVAILABLE"},
		{"admin login", et.adminForm(map[string][]string{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}}), "admin/SERVICE_UNAVAILABLE"},
		{"auth discovery", et.do(http.MethodGet, "/auth", nil, nil), "auth/SERVICE_UNAVAILABLE"},
		{"token removal", et.bearer(http.MethodDelete, "/auth/tokens/current", token), "auth/SERVICE_UNAVAILABLE"},
		{"unknown address", et.do(http.MethodGet, "/nothing", nil, nil), "registry/SERVICE_UNAVAILABLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.wantProblem(t, 503, tc.code, "")
			if got := tc.res.header.Get("Retry-After"); got != "2" {
				t.Errorf("Retry-After = %q, want 2", got)
			}
		})
	}
	t.Run("token endpoint answers in OAuth form", func(t *testing.T) {
		res := et.grant(map[string][]string{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {DefaultUserPassword}})
		body := res.wantJSON(t, 503, "application/json")
		if body["error"] != "temporarily_unavailable" || res.header.Get("Retry-After") != "2" || res.header.Get("Set-Cookie") != "" {
			t.Errorf("faulted grant: %v, headers %v", body, res.header)
		}
	})

	// The control surface is never faulted.
	s := et.stats()
	if s.Requests["PUT /api/v1/externalauth"] != 1 || s.Logins["admin"] != 1 || s.Logins["oauth"] != 1 || s.LiveTokens != 1 {
		t.Errorf("stats under faults = %+v: faulted requests are counted but have no effect", s)
	}
	et.control(http.MethodPost, "faults", `{}`).wantStatus(t, 200)

	got := et.admin(http.MethodGet, "/externalauth", session, nil).wantJSON(t, 200, "application/json")
	if got["domainName"] != "" {
		t.Errorf("a faulted PUT took effect: %v", got)
	}
	et.bearer(http.MethodGet, "/auth/tokens/current", token).wantStatus(t, 200) // removal had no effect
}

func TestFaultStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, code, retryAfter string
		status                 int
	}{
		{`{"failRate": 1}`, "auth/SERVICE_UNAVAILABLE", "", 503},
		{`{"failRate": 1, "status": 500}`, "auth/INTERNAL_SERVER_ERROR", "", 500},
		{`{"failRate": 1, "status": 502, "retryAfter": 1}`, "auth/BAD_GATEWAY", "1", 502},
		{`{"failRate": 1, "status": 504}`, "auth/GATEWAY_TIMEOUT", "", 504},
		{`{"failRate": 1, "status": 429}`, "auth/TOO_MANY_REQUESTS", "1", 429}, // 429 always carries Retry-After
		{`{"failRate": 1, "status": 429, "retryAfter": 3}`, "auth/TOO_MANY_REQUESTS", "3", 429},
	} {
		t.Run(tc.body, func(t *testing.T) {
			t.Parallel()
			et := newEmuTester(t, Options{})
			et.control(http.MethodPost, "faults", tc.body).wantStatus(t, 200)
			res := et.do(http.MethodGet, "/auth", nil, nil)
			res.wantProblem(t, tc.status, tc.code, "")
			if got := res.header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
		})
	}
}

func TestFaultsFromOptions(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{Faults: Faults{FailRate: 1}})
	et.do(http.MethodGet, "/auth", nil, nil).wantProblem(t, 503, "auth/SERVICE_UNAVAILABLE", "")
	et.control(http.MethodPost, "faults", "").wantStatus(t, 200) // an empty body clears them
	et.do(http.MethodGet, "/auth", nil, nil).wantStatus(t, 200)
	et.control(http.MethodPost, "reset", "").wantStatus(t, 200) // reset restores the start faults
	et.do(http.MethodGet, "/auth", nil, nil).wantStatus(t, 503)
}

func TestFaultsLatency(t *testing.T) {
	t.Parallel()
	const latency = 300 * time.Millisecond
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "faults", `{"latencyMs": 300}`).wantStatus(t, 200)

	start := time.Now()
	et.do(http.MethodGet, "/auth", nil, nil).wantStatus(t, 200)
	if d := time.Since(start); d < latency {
		t.Errorf("platform request took %v, want at least %v", d, latency)
	}
	start = time.Now()
	et.control(http.MethodGet, "stats", "").wantStatus(t, 200)
	if d := time.Since(start); d >= latency {
		t.Errorf("control request took %v: the control surface must not be delayed", d)
	}
}

func TestFaultsRateLimit(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "faults", `{"rateLimitPerSecond": 3}`).wantStatus(t, 200)

	// Fire 6 logins at once: within one second exactly 3 pass.
	var wg sync.WaitGroup
	results := make([]*emuResponse, 6)
	for i := range results {
		wg.Go(func() {
			results[i] = et.adminForm(map[string][]string{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}})
		})
	}
	wg.Wait()
	ok, limited := 0, 0
	for _, res := range results {
		switch res.status {
		case 200:
			ok++
		case 429:
			limited++
			res.wantProblem(t, 429, "admin/TOO_MANY_REQUESTS", "")
			if res.header.Get("Retry-After") != "1" {
				t.Errorf("Retry-After = %q, want 1", res.header.Get("Retry-After"))
			}
		default:
			t.Errorf("status %d: %s", res.status, res.body)
		}
	}
	if ok != 3 || limited != 3 {
		t.Errorf("%d passed, %d limited; want 3 and 3", ok, limited)
	}
	// A limited request had no effect; the control surface is not limited.
	if s := et.stats(); s.Logins["admin"] != 3 || s.LiveSessions != 3 {
		t.Errorf("logins %v, liveSessions %d; want 3, 3", s.Logins, s.LiveSessions)
	}
}

func TestFaultsValidation(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	for _, tc := range []struct{ body, field string }{
		{`{`, "body"},
		{`{"failRate": "all"}`, "body"},
		{`{"failRate": 1.5}`, "failRate"},
		{`{"failRate": -0.1}`, "failRate"},
		{`{"status": 404}`, "status"},
		{`{"status": 200}`, "status"},
		{`{"retryAfter": -1}`, "retryAfter"},
		{`{"latencyMs": -1}`, "latencyMs"},
		{`{"rateLimitPerSecond": -1}`, "rateLimitPerSecond"},
		{`{"dropRate": 1.01}`, "dropRate"},
		{`{"dropRate": -1}`, "dropRate"},
		{`{"dropRoutes": "POST /auth"}`, "body"},
	} {
		t.Run(tc.body, func(t *testing.T) {
			et.control(http.MethodPost, "faults", tc.body).wantProblem(t, 400, "emulator/BAD_ARGUMENT", tc.field)
		})
	}
	if f := et.e.faults.get(); f.FailRate != 0 || f.LatencyMs != 0 {
		t.Errorf("a rejected faults document took effect: %+v", f)
	}
}

// TestFaultsDrop checks the drop-after-effect fault: the request takes effect, and
// the client gets no answer at all.
func TestFaultsDrop(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	const putRoute = "PUT /api/v1/externalauth"
	set := et.control(http.MethodPost, "faults", `{"dropRate": 1, "dropRoutes": ["`+putRoute+`"]}`).wantJSON(t, 200, "application/json")
	if set["dropRate"] != float64(1) || !reflect.DeepEqual(set["dropRoutes"], []any{putRoute}) {
		t.Errorf("POST faults = %v", set)
	}

	// The PUT gets no answer, but the settings are stored.
	req := et.request(http.MethodPut, et.e.AdminURL(et.srv.URL)+"/externalauth",
		strings.NewReader(`{"domainName": "CORP", "externalAuthenticationEnabled": true}`))
	req.Header.Set("token", session)
	req.Header.Set("Content-Type", "application/json")
	if res, err := et.srv.Client().Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("a dropped request got an answer: %s", res.Status)
	}
	// Routes not listed are answered.
	got := et.admin(http.MethodGet, "/externalauth", session, nil).wantJSON(t, 200, "application/json")
	if got["domainName"] != "CORP" || got["externalAuthenticationEnabled"] != true {
		t.Errorf("the dropped PUT had no effect: %v", got)
	}
	if n := et.stats().Requests[putRoute]; n != 1 {
		t.Errorf("%s counted %d times, want 1", putRoute, n)
	}

	// Without routes every platform request is dropped after effect, the control
	// surface never.
	et.control(http.MethodPost, "faults", `{"dropRate": 1}`).wantStatus(t, 200)
	req = et.request(http.MethodPost, ropcPath, strings.NewReader("grant_type=password&username="+DefaultUserName+"&password="+DefaultUserPassword))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(DefaultClientID, DefaultClientSecret)
	if res, err := et.srv.Client().Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("a dropped grant got an answer: %s", res.Status)
	}
	if s := et.stats(); s.Logins["oauth"] != 1 || s.LiveTokens != 1 {
		t.Errorf("the dropped grant had no effect: %+v", s)
	}
	et.control(http.MethodPost, "faults", "").wantStatus(t, 200)
	et.do(http.MethodGet, "/auth", nil, nil).wantStatus(t, 200)
}

// TestFaultsDropHTTP2 drops an answer on an HTTP/2 connection: the stream is reset.
func TestFaultsDropHTTP2(t *testing.T) {
	t.Parallel()
	e := New(Options{Faults: Faults{DropRate: 1}})
	srv := httptest.NewUnstartedServer(e)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.AdminURL(srv.URL)+"/login",
		strings.NewReader("user="+DefaultAdminName+"&pass="+DefaultAdminPassword+"&r=createsession"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := srv.Client().Do(req)
	if err == nil {
		res.Body.Close()
		t.Fatalf("a dropped request got an answer: %s (%s)", res.Status, res.Proto)
	}
	if s := e.Stats(); s.Logins["admin"] != 1 || s.LiveSessions != 1 {
		t.Errorf("the dropped login had no effect: %+v", s)
	}
}

// TestFaultsDropRate drops about the configured share of requests.
func TestFaultsDropRate(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "faults", `{"dropRate": 0.5}`).wantStatus(t, 200)
	// A new connection for every request: net/http repeats a GET that fails on a
	// reused connection, which would count it twice.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	dropped := 0
	const n = 100
	for range n {
		res, err := c.Do(et.request(http.MethodGet, "/auth", nil))
		if err != nil {
			dropped++
			continue
		}
		res.Body.Close()
	}
	// Binomial(100, 0.5): outside 20..80 with a probability below 1e-9.
	if dropped < 20 || dropped > 80 {
		t.Errorf("%d of %d requests dropped at dropRate 0.5", dropped, n)
	}
	if got := et.stats().Requests["GET /auth"]; got != n {
		t.Errorf("GET /auth counted %d times, want %d", got, n)
	}
}

// TestIssuedSecrets lists every session token, access token and viewer path handed out.
func TestIssuedSecrets(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{RenderDelay: -1})
	if got := et.e.IssuedSecrets(); len(got) != 0 {
		t.Errorf("fresh emulator: IssuedSecrets() = %v", got)
	}
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	removed := et.platformLogin(DefaultUserName, DefaultUserPassword)
	et.bearer(http.MethodDelete, "/auth/tokens/current", removed).wantStatus(t, 204)

	pub := et.e.PublishingURL(et.srv.URL)
	req := et.request(http.MethodPost, pub+"/scores", strings.NewReader(`{"scoreUrl": "https://cdn.example/a.sib"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	var score struct {
		Score struct {
			ID string `json:"id"`
		} `json:"score"`
	}
	if err := json.Unmarshal(et.send(req).body, &score); err != nil || score.Score.ID == "" {
		t.Fatalf("publishing: %v", err)
	}
	req = et.request(http.MethodPost, pub+"/scores/"+score.Score.ID+"/view", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	var view struct {
		View struct {
			ViewerURL string `json:"viewerUrl"`
		} `json:"view"`
	}
	if err := json.Unmarshal(et.send(req).body, &view); err != nil || view.View.ViewerURL == "" {
		t.Fatalf("creating a view: %v", err)
	}

	got := et.e.IssuedSecrets()
	want := []string{session, token, removed, strings.TrimPrefix(view.View.ViewerURL, et.srv.URL)}
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IssuedSecrets() = %v, want %v", got, want)
	}
}

func TestControlRoutes(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	res := et.control(http.MethodGet, "reset", "")
	res.wantProblem(t, http.StatusMethodNotAllowed, "emulator/METHOD_NOT_ALLOWED", "")
	if res.header.Get("Allow") != "POST" {
		t.Errorf("Allow = %q, want POST", res.header.Get("Allow"))
	}
	et.control(http.MethodGet, "nothing", "").wantProblem(t, 404, "emulator/NOT_FOUND", "")
	if n := et.stats().TotalRequests(); n != 0 {
		t.Errorf("control requests were counted: %d", n)
	}
}

// TestControlIsolation runs emulators side by side: no state is shared.
func TestControlIsolation(t *testing.T) {
	t.Parallel()
	a, b := newEmuTester(t, Options{}), newEmuTester(t, Options{})
	session := a.adminLogin(DefaultAdminName, DefaultAdminPassword)
	token := a.platformLogin(DefaultUserName, DefaultUserPassword)
	a.admin(http.MethodPut, "/externalauth", session,
		strings.NewReader(`{"domainName": "A", "externalAuthenticationEnabled": true}`)).wantStatus(t, 200)
	a.control(http.MethodPost, "faults", `{"failRate": 1}`).wantStatus(t, 200)

	// b knows neither a's session nor a's token, has its own settings, no faults.
	b.admin(http.MethodGet, "/checksession", session, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	b.bearer(http.MethodGet, "/auth/tokens/current", token).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
	got := b.admin(http.MethodGet, "/externalauth", b.adminLogin(DefaultAdminName, DefaultAdminPassword), nil).wantJSON(t, 200, "application/json")
	if got["domainName"] != "" {
		t.Errorf("b sees a's settings: %v", got)
	}
	sb := b.stats()
	if sb.Logins["admin"] != 1 || sb.Logins["oauth"] != 0 || sb.TotalRequests() != 4 {
		t.Errorf("b's stats = %+v", sb)
	}
	a.control(http.MethodPost, "reset", "").wantStatus(t, 200)
	if sb2 := b.stats(); sb2.Logins["admin"] != 1 {
		t.Errorf("resetting a reset b: %+v", sb2)
	}
	var f Faults
	if err := json.Unmarshal(b.control(http.MethodGet, "faults", "").body, &f); err != nil || f.FailRate != 0 {
		t.Errorf("b's faults = %+v, %v", f, err)
	}
}

// TestClockOffset: a platform three hours behind writes its timestamps and its Date
// header on its clock, and judges expiry consistently with them.
func TestClockOffset(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{Faults: Faults{ClockOffsetSeconds: -3 * 3600}})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	et.publishN(token, 1)
	res := et.bearer(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores", token)
	date, err := http.ParseTime(res.header.Get("Date"))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(date) + 3*time.Hour; d < -2*time.Second || d > 2*time.Second {
		t.Errorf("Date %s is not three hours behind", date)
	}
	var list map[string]any
	res.decode(t, &list)
	created := emuWantTime(t, emuObject(t, emuArray(t, list["scores"])[0])["createdAt"])
	if d := time.Until(created) + 3*time.Hour; d < -2*time.Second || d > 2*time.Second {
		t.Errorf("createdAt %s is not three hours behind", created)
	}
	// The control surface keeps this machine's clock.
	if et.control(http.MethodGet, "stats", "").header.Get("Date") == res.header.Get("Date") && d3(date) {
		t.Error("the control surface answered on the shifted clock")
	}
	var faults Faults
	et.control(http.MethodGet, "faults", "").decode(t, &faults)
	if faults.ClockOffsetSeconds != -3*3600 {
		t.Errorf("faults: %+v", faults)
	}
	et.control(http.MethodPost, "faults", `{"clockOffsetSeconds": 999999999}`).wantProblem(t, 400, "emulator/BAD_ARGUMENT", "clockOffsetSeconds")
}

// TestClockStep: the platform's clock steps two hours forward after a score was
// published. Its createdAt keeps the clock it was taken on; its updatedAt, taken when
// it rendered after the step, is on the new one, so the score reads as having taken
// two hours to render.
func TestClockStep(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{RenderDelay: 100 * time.Millisecond})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	et.publishN(token, 1)
	before := time.Now()
	et.e.SetFaults(Faults{ClockOffsetSeconds: 2 * 3600})
	time.Sleep(200 * time.Millisecond)
	var list map[string]any
	et.bearer(http.MethodGet, et.e.PublishingURL(et.srv.URL)+"/scores", token).decode(t, &list)
	score := emuObject(t, emuArray(t, list["scores"])[0])
	created, updated := emuWantTime(t, score["createdAt"]), emuWantTime(t, score["updatedAt"])
	if created.After(before) {
		t.Errorf("createdAt %s moved with the step", created)
	}
	if d := updated.Sub(created); d < 2*time.Hour || d > 2*time.Hour+time.Minute {
		t.Errorf("updatedAt - createdAt = %s, want the rendering time plus the step of 2h", d)
	}
}
