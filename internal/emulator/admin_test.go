package emulator

// Contract section A (administrator API) and section 0 conventions, row by row.
// Shared helpers (emuTester and friends) are in helpers_test.go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAdminLogin(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})

	t.Run("success", func(t *testing.T) {
		res := et.adminForm(url.Values{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}})
		body := res.wantJSON(t, http.StatusOK, "application/json")
		emuWantKeys(t, body, "token", "user")
		if body["user"] != "admin" {
			t.Errorf("user = %v, want admin", body["user"])
		}
		if tok, _ := body["token"].(string); tok == "" {
			t.Errorf("token = %v, want a non-empty string", body["token"])
		}
	})
	t.Run("viewer may log in", func(t *testing.T) {
		res := et.adminForm(url.Values{"user": {DefaultViewerName}, "pass": {DefaultViewerPassword}, "r": {"createsession"}})
		res.wantJSON(t, http.StatusOK, "application/json")
	})

	failures := []struct {
		name   string
		form   url.Values
		status int
		code   string
		field  string
	}{
		{"missing user", url.Values{"pass": {DefaultAdminPassword}, "r": {"createsession"}}, 400, "admin/BAD_ARGUMENT", "user"},
		{"missing pass", url.Values{"user": {"admin"}, "r": {"createsession"}}, 400, "admin/BAD_ARGUMENT", "pass"},
		{"missing r", url.Values{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}}, 400, "admin/BAD_ARGUMENT", "r"},
		{"r not createsession", url.Values{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"destroysession"}}, 400, "admin/BAD_ARGUMENT", "r"},
		{"empty form", url.Values{}, 400, "admin/BAD_ARGUMENT", "user"},
		{"unknown user", url.Values{"user": {"mallory"}, "pass": {"x"}, "r": {"createsession"}}, 401, "admin/INVALID_CREDENTIALS", ""},
		{"wrong password", url.Values{"user": {DefaultAdminName}, "pass": {DefaultViewerPassword}, "r": {"createsession"}}, 401, "admin/INVALID_CREDENTIALS", ""},
		{"platform-only user", url.Values{"user": {DefaultUserName}, "pass": {DefaultUserPassword}, "r": {"createsession"}}, 401, "admin/INVALID_CREDENTIALS", ""},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			et.adminForm(tc.form).wantProblem(t, tc.status, tc.code, tc.field)
		})
	}

	t.Run("failed logins are not counted", func(t *testing.T) {
		fresh := newEmuTester(t, Options{})
		fresh.adminForm(url.Values{"user": {"admin"}, "pass": {"nope"}, "r": {"createsession"}}).wantStatus(t, 401)
		if s := fresh.stats(); s.Logins["admin"] != 0 || s.LiveSessions != 0 {
			t.Errorf("after a failed login: logins %v, liveSessions %d; want 0, 0", s.Logins, s.LiveSessions)
		}
	})
}

func TestAdminCheckSession(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)

	before := time.Now()
	res := et.admin(http.MethodGet, "/checksession", token, nil)
	body := res.wantJSON(t, http.StatusOK, "application/json")
	emuWantKeys(t, body, "valid", "user", "expiresAt")
	if body["valid"] != true || body["user"] != "admin" {
		t.Errorf("checksession = %v, want valid true and user admin", body)
	}
	expiresAt := emuWantTime(t, body["expiresAt"])
	// Default idle period: 30 min from this request.
	if d := expiresAt.Sub(before); d < 30*time.Minute-time.Second || d > 30*time.Minute+5*time.Second {
		t.Errorf("expiresAt is %v after the request, want about 30m", d)
	}

	for _, tc := range []struct{ name, token string }{{"no token", ""}, {"unknown token", "as-nope"}} {
		t.Run(tc.name, func(t *testing.T) {
			et.admin(http.MethodGet, "/checksession", tc.token, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
		})
	}
	t.Run("Bearer prefix is not the header", func(t *testing.T) {
		req := et.request(http.MethodGet, et.e.AdminURL(et.srv.URL)+"/checksession", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		et.send(req).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	})
}

func TestAdminLogout(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	other := et.adminLogin(DefaultAdminName, DefaultAdminPassword)

	body := et.admin(http.MethodGet, "/logout", token, nil).wantJSON(t, http.StatusOK, "application/json")
	if !reflect.DeepEqual(body, map[string]any{"loggedOut": true}) {
		t.Errorf("logout = %v, want exactly {loggedOut: true}", body)
	}
	et.admin(http.MethodGet, "/checksession", token, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	et.admin(http.MethodGet, "/externalauth", token, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	et.admin(http.MethodGet, "/logout", token, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	et.admin(http.MethodGet, "/logout", "", nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	// Only that session ends.
	et.admin(http.MethodGet, "/checksession", other, nil).wantStatus(t, 200)
}

func TestAdminSessionIdleExpiry(t *testing.T) {
	t.Parallel()
	// The sessions run on a clock that only the test advances, so the test holds on a
	// machine of any speed.
	const idle = 30 * time.Minute
	e := New(Options{SessionIdle: idle})
	clock := newTestClock()
	e.admin.clock = clock.Now
	et := serveEmulator(t, e)
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)

	// Every authenticated request renews the session: 5 × idle/4 outlives one idle period.
	for range 5 {
		clock.Advance(idle / 4)
		et.admin(http.MethodGet, "/checksession", token, nil).wantStatus(t, http.StatusOK)
	}
	// A request that is forbidden is still authenticated, and renews too: the check
	// comes a full idle period after the login.
	viewer := et.adminLogin(DefaultViewerName, DefaultViewerPassword)
	clock.Advance(idle / 2)
	et.admin(http.MethodGet, "/externalauth", viewer, nil).wantStatus(t, http.StatusForbidden)
	clock.Advance(idle / 2)
	et.admin(http.MethodGet, "/checksession", viewer, nil).wantStatus(t, http.StatusOK)

	clock.Advance(idle)
	et.admin(http.MethodGet, "/checksession", viewer, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	et.admin(http.MethodGet, "/checksession", token, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	et.admin(http.MethodGet, "/externalauth", token, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	if n := et.stats().LiveSessions; n != 0 {
		t.Errorf("liveSessions after the idle period = %d, want 0", n)
	}
}

func TestAdminExternalAuthInitial(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	body := et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json")
	want := map[string]any{"domainName": "", "externalAuthenticationEnabled": false}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("initial settings = %v, want %v", body, want)
	}
}

func TestAdminExternalAuthPut(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		put  string
		want map[string]any // the stored document, returned by PUT and by GET
	}{
		{
			name: "required fields only",
			put:  `{"domainName": "CORP", "externalAuthenticationEnabled": true}`,
			want: map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true},
		},
		{
			name: "contract example",
			put: `{"domainName": "CORP", "externalAuthenticationEnabled": true,
				"server0": "dc1.corp.example", "port0": "389", "enabled0": true,
				"server1": "dc2.corp.example", "port1": "636", "enabled1": false}`,
			want: map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true,
				"server0": "dc1.corp.example", "port0": "389", "enabled0": true,
				"server1": "dc2.corp.example", "port1": "636", "enabled1": false},
		},
		{
			name: "enabledN defaults to true, portN stays absent",
			put:  `{"domainName": "CORP", "externalAuthenticationEnabled": false, "server0": "dc1"}`,
			want: map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": false,
				"server0": "dc1", "enabled0": true},
		},
		{
			name: "IP addresses",
			put: `{"domainName": "CORP", "externalAuthenticationEnabled": true,
				"server0": "10.0.0.1", "port0": "1",
				"server1": "::1", "port1": "65535",
				"server2": "2001:db8::53",
				"server3": "fe80::1",
				"server4": "dc-1.corp.example"}`,
			want: map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true,
				"server0": "10.0.0.1", "port0": "1", "enabled0": true,
				"server1": "::1", "port1": "65535", "enabled1": true,
				"server2": "2001:db8::53", "enabled2": true,
				"server3": "fe80::1", "enabled3": true,
				"server4": "dc-1.corp.example", "enabled4": true},
		},
		{
			name: "eight sets, unknown fields ignored, null is not sent",
			put: `{"domainName": "CORP", "externalAuthenticationEnabled": true, "comment": "x", "server01": "ignored",
				"server0": "h0", "server1": "h1", "server2": "h2", "server3": "h3",
				"server4": "h4", "server5": "h5", "server6": "h6", "server7": "h7", "port7": "7", "enabled7": false,
				"server8": null, "port8": null}`,
			want: map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true,
				"server0": "h0", "enabled0": true, "server1": "h1", "enabled1": true,
				"server2": "h2", "enabled2": true, "server3": "h3", "enabled3": true,
				"server4": "h4", "enabled4": true, "server5": "h5", "enabled5": true,
				"server6": "h6", "enabled6": true, "server7": "h7", "port7": "7", "enabled7": false},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			et := newEmuTester(t, Options{})
			token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
			got := et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(tc.put)).wantJSON(t, http.StatusOK, "application/json")
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("PUT returned %v, want %v", got, tc.want)
			}
			got = et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json")
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("GET returned %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAdminExternalAuthReplaces(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(`{"domainName": "CORP", "externalAuthenticationEnabled": true,
		"server0": "a", "port0": "389", "server1": "b", "server2": "c", "enabled2": false}`)).wantStatus(t, 200)
	et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(`{"domainName": "NEW", "externalAuthenticationEnabled": false,
		"server0": "z"}`)).wantStatus(t, 200)
	got := et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json")
	want := map[string]any{"domainName": "NEW", "externalAuthenticationEnabled": false, "server0": "z", "enabled0": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after replacing PUT: %v, want %v (sets not sent are removed, port0 too)", got, want)
	}
	// Back to no sets at all.
	et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(`{"domainName": "NEW", "externalAuthenticationEnabled": false}`)).wantStatus(t, 200)
	got = et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json")
	if want := map[string]any{"domainName": "NEW", "externalAuthenticationEnabled": false}; !reflect.DeepEqual(got, want) {
		t.Errorf("after a PUT without sets: %v, want %v", got, want)
	}
}

func TestAdminExternalAuthPutFailures(t *testing.T) {
	t.Parallel()
	const req = `"domainName": "CORP", "externalAuthenticationEnabled": true`
	cases := []struct {
		name  string
		body  string
		field string
	}{
		{"not JSON", `{`, "body"},
		{"JSON array", `[]`, "body"},
		{"JSON null", `null`, "body"},
		{"empty body", ``, "body"},
		{"domainName missing", `{"externalAuthenticationEnabled": true}`, "domainName"},
		{"domainName empty", `{"domainName": "", "externalAuthenticationEnabled": true}`, "domainName"},
		{"domainName not a string", `{"domainName": 7, "externalAuthenticationEnabled": true}`, "domainName"},
		{"domainName null", `{"domainName": null, "externalAuthenticationEnabled": true}`, "domainName"},
		{"enabled missing", `{"domainName": "CORP"}`, "externalAuthenticationEnabled"},
		{"enabled null", `{"domainName": "CORP", "externalAuthenticationEnabled": null}`, "externalAuthenticationEnabled"},
		{"enabled a string", `{"domainName": "CORP", "externalAuthenticationEnabled": "true"}`, "externalAuthenticationEnabled"},
		{"gap: set 1 without set 0", `{` + req + `, "server1": "b"}`, "server1"},
		{"gap: set 2 without set 1", `{` + req + `, "server0": "a", "server2": "c"}`, "server2"},
		{"gap: set 3 after set 0", `{` + req + `, "server0": "a", "server3": "d"}`, "server3"},
		{"gap: lowest offender reported", `{` + req + `, "server0": "a", "server2": "c", "server5": "f"}`, "server2"},
		{"port without server", `{` + req + `, "server0": "a", "port1": "389"}`, "server1"},
		{"enabled without server", `{` + req + `, "enabled0": true}`, "server0"},
		{"ninth set", `{` + req + `, "server0": "h0", "server1": "h1", "server2": "h2", "server3": "h3",
			"server4": "h4", "server5": "h5", "server6": "h6", "server7": "h7", "server8": "h8"}`, "server8"},
		{"set 8 alone", `{` + req + `, "port8": "389"}`, "server8"},
		{"set number too large", `{` + req + `, "server99999999999999999999": "x"}`, "server99999999999999999999"},
		{"server empty", `{` + req + `, "server0": ""}`, "server0"},
		{"server not a string", `{` + req + `, "server0": 10}`, "server0"},
		{"server with a space", `{` + req + `, "server0": "dc 1"}`, "server0"},
		{"server a URL", `{` + req + `, "server0": "ldap://dc1"}`, "server0"},
		{"server label starts with hyphen", `{` + req + `, "server0": "-dc1.corp"}`, "server0"},
		{"server empty label", `{` + req + `, "server0": "dc1..corp"}`, "server0"},
		{"port a number", `{` + req + `, "server0": "a", "port0": 389}`, "port0"},
		{"port 0", `{` + req + `, "server0": "a", "port0": "0"}`, "port0"},
		{"port 65536", `{` + req + `, "server0": "a", "port0": "65536"}`, "port0"},
		{"port negative", `{` + req + `, "server0": "a", "port0": "-1"}`, "port0"},
		{"port not decimal", `{` + req + `, "server0": "a", "port0": "ldap"}`, "port0"},
		{"port empty", `{` + req + `, "server0": "a", "port0": ""}`, "port0"},
		{"port with sign", `{` + req + `, "server0": "a", "port0": "+389"}`, "port0"},
		{"port with leading zero", `{` + req + `, "server0": "a", "port0": "0389"}`, "port0"},
		{"port of the second set", `{` + req + `, "server0": "a", "port0": "389", "server1": "b", "port1": "70000"}`, "port1"},
		{"enabled a string", `{` + req + `, "server0": "a", "enabled0": "yes"}`, "enabled0"},
	}
	et := newEmuTester(t, Options{})
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	stored := `{"domainName": "KEEP", "externalAuthenticationEnabled": true, "server0": "keep", "port0": "389"}`
	et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(stored)).wantStatus(t, 200)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(tc.body)).
				wantProblem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", tc.field)
		})
	}
	// No rejected PUT changed anything.
	got := et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json")
	want := map[string]any{"domainName": "KEEP", "externalAuthenticationEnabled": true, "server0": "keep", "port0": "389", "enabled0": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after rejected PUTs: %v, want %v", got, want)
	}
}

func TestAdminExternalAuthAccess(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	viewer := et.adminLogin(DefaultViewerName, DefaultViewerPassword)
	doc := `{"domainName": "EVIL", "externalAuthenticationEnabled": true}`

	et.admin(http.MethodGet, "/externalauth", viewer, nil).wantProblem(t, 403, "admin/FORBIDDEN", "")
	et.admin(http.MethodPut, "/externalauth", viewer, strings.NewReader(doc)).wantProblem(t, 403, "admin/FORBIDDEN", "")
	// 403 comes before validation of the body.
	et.admin(http.MethodPut, "/externalauth", viewer, strings.NewReader(`{`)).wantProblem(t, 403, "admin/FORBIDDEN", "")
	for _, token := range []string{"", "as-unknown"} {
		et.admin(http.MethodGet, "/externalauth", token, nil).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
		et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(doc)).wantProblem(t, 401, "admin/UNAUTHORIZED", "")
	}
	admin := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	got := et.admin(http.MethodGet, "/externalauth", admin, nil).wantJSON(t, http.StatusOK, "application/json")
	if got["domainName"] != "" {
		t.Errorf("a forbidden PUT took effect: %v", got)
	}
}

func TestAdminUnknownRoutes(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)

	res := et.admin(http.MethodDelete, "/externalauth", token, nil)
	res.wantProblem(t, http.StatusMethodNotAllowed, "admin/METHOD_NOT_ALLOWED", "")
	if got := res.header.Get("Allow"); got != "GET, HEAD, PUT" {
		t.Errorf("Allow = %q, want %q", got, "GET, HEAD, PUT")
	}
	res = et.admin(http.MethodGet, "/login", "", nil)
	res.wantProblem(t, http.StatusMethodNotAllowed, "admin/METHOD_NOT_ALLOWED", "")
	if got := res.header.Get("Allow"); got != "POST" {
		t.Errorf("Allow = %q, want POST", got)
	}
	et.admin(http.MethodGet, "/nothing", token, nil).wantProblem(t, http.StatusNotFound, "admin/NOT_FOUND", "")
	// The admin API lives under the version-1 segment only.
	et.do(http.MethodPost, "/login", nil, nil).wantStatus(t, http.StatusNotFound)
}

// TestAdminSettingsReadings: the readings of the settings answers that the contract
// leaves open (their fields are not shown) answer as WIRE.md says.
func TestAdminSettingsReadings(t *testing.T) {
	t.Parallel()
	put := `{"domainName": "CORP", "externalAuthenticationEnabled": false,
		"server0": "dc1", "port0": "389", "enabled0": true, "server1": "dc2", "enabled1": false}`
	t.Run("allServerSlots", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		et.withReadings("allServerSlots")
		token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
		want := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": false,
			"server0": "dc1", "port0": "389", "enabled0": true, "server1": "dc2", "enabled1": false}
		for n := 2; n < 8; n++ {
			want[fmt.Sprint("server", n)], want[fmt.Sprint("port", n)], want[fmt.Sprint("enabled", n)] = "", "", false
		}
		got := et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(put)).wantJSON(t, http.StatusOK, "application/json")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PUT returned %v, want %v", got, want)
		}
		// Its own answer, empty slots and all, is a document it takes back.
		back, _ := json.Marshal(got)
		got = et.admin(http.MethodPut, "/externalauth", token, bytes.NewReader(back)).wantJSON(t, http.StatusOK, "application/json")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PUT of the answer returned %v, want %v", got, want)
		}
	})
	t.Run("omitEmptyAdminMembers", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		et.withReadings("omitEmptyAdminMembers")
		token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
		if got := et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json"); len(got) != 0 {
			t.Errorf("initial settings = %v, want {}", got)
		}
		want := map[string]any{"domainName": "CORP", "server0": "dc1", "port0": "389", "enabled0": true, "server1": "dc2"}
		got := et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(put)).wantJSON(t, http.StatusOK, "application/json")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PUT returned %v, want %v", got, want)
		}
		if got := et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json"); !reflect.DeepEqual(got, want) {
			t.Errorf("GET returned %v, want %v", got, want)
		}
	})
	t.Run("settingsExtraFields", func(t *testing.T) {
		t.Parallel()
		et := newEmuTester(t, Options{})
		token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
		// Off, the emulator ignores unknown members, as the contract says.
		et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(`{"domainName": "CORP",
			"externalAuthenticationEnabled": true, "searchBase": "ignored"}`)).wantStatus(t, http.StatusOK)
		et.withReadings("settingsExtraFields")
		got := et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, http.StatusOK, "application/json")
		want := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true,
			"searchBase": "dc=corp,dc=example", "connectTimeoutSeconds": float64(30)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GET returned %v, want %v", got, want)
		}
		// A PUT replaces them with what it sends.
		got = et.admin(http.MethodPut, "/externalauth", token, strings.NewReader(`{"domainName": "CORP",
			"externalAuthenticationEnabled": true, "searchBase": "ou=people", "server01": "x"}`)).wantJSON(t, http.StatusOK, "application/json")
		want = map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "searchBase": "ou=people", "server01": "x"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PUT returned %v, want %v", got, want)
		}
	})
}
