package emulator

// Contract section B (platform token flow), row by row. Helpers are in helpers_test.go.

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// hrefs returns the hrefs of a HAL link relation that must be an array (contract §0).
func emuHrefs(t *testing.T, links map[string]any, rel string) []map[string]any {
	t.Helper()
	arr, ok := links[rel].([]any)
	if !ok || len(arr) == 0 {
		t.Fatalf("link %s = %v, want a non-empty array", rel, links[rel])
	}
	out := make([]map[string]any, len(arr))
	for i, l := range arr {
		out[i], ok = l.(map[string]any)
		if !ok {
			t.Fatalf("link %s[%d] = %v, want an object", rel, i, l)
		}
	}
	return out
}

func TestAuthDiscovery(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	base := et.e.PlatformURL(et.srv.URL)

	root := et.do(http.MethodGet, base+"/auth", nil, nil).wantJSON(t, 200, "application/hal+json")
	emuWantKeys(t, root, "_links")
	links := emuObject(t, root["_links"])
	emuWantKeys(t, links, "self", "auth:identity-providers", "auth:token")
	if self, _ := links["self"].(map[string]any); self["href"] != base+"/auth" {
		t.Errorf("self = %v, want the object {href: %s/auth}", links["self"], base)
	}
	idp := emuHrefs(t, links, "auth:identity-providers")
	if want := []map[string]any{{"href": base + "/auth/identity-providers"}}; !reflect.DeepEqual(idp, want) {
		t.Errorf("auth:identity-providers = %v, want %v", idp, want)
	}
	tok := emuHrefs(t, links, "auth:token")
	if want := []map[string]any{{"href": base + "/auth/tokens/current", "name": "current"}}; !reflect.DeepEqual(tok, want) {
		t.Errorf("auth:token = %v, want %v", tok, want)
	}

	// B2: follow the link, no authentication.
	list := et.do(http.MethodGet, emuString(t, idp[0]["href"]), nil, nil).wantJSON(t, 200, "application/hal+json")
	providers, _ := list["_embedded"].(map[string]any)["auth:identity-provider"].([]any)
	if len(providers) != 2 {
		t.Fatalf("auth:identity-provider = %v, want two providers", list["_embedded"])
	}
	first := emuObject(t, providers[0])
	if first["kind"] == "oauth" {
		t.Errorf("first provider is oauth; the contract lists a non-oauth provider first")
	}
	second := emuObject(t, providers[1])
	if second["kind"] != "oauth" {
		t.Fatalf("second provider kind = %v, want oauth", second["kind"])
	}
	ropc := emuHrefs(t, emuObject(t, second["_links"]), "auth:ropc-default")
	if want := []map[string]any{{"href": base + "/auth/oauth2/ropc/default"}}; !reflect.DeepEqual(ropc, want) {
		t.Errorf("auth:ropc-default = %v, want %v", ropc, want)
	}
}

func TestAuthPasswordGrant(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	res := et.grant(url.Values{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {DefaultUserPassword}})
	body := res.wantJSON(t, http.StatusOK, "application/json")
	emuWantKeys(t, body, "access_token", "token_type", "expires_in", "scope")
	token, _ := body["access_token"].(string)
	if token == "" || body["token_type"] != "Bearer" || body["expires_in"] != float64(900) || body["scope"] != "openid" {
		t.Errorf("grant = %v, want a token, Bearer, 900, openid", body)
	}
	if got, want := res.header.Get("Set-Cookie"), "serviceAccessToken="+token+"; Path=/; HttpOnly"; got != want {
		t.Errorf("Set-Cookie = %q, want %q", got, want)
	}
	// The viewer is a platform user too.
	et.platformLogin(DefaultViewerName, DefaultViewerPassword)
	if n := et.stats().Logins["oauth"]; n != 2 {
		t.Errorf("oauth logins = %d, want 2", n)
	}
}

func TestAuthPasswordGrantErrors(t *testing.T) {
	t.Parallel()
	good := url.Values{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {DefaultUserPassword}}
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name   string
		auth   string // the Authorization header; "-" for the right client
		form   url.Values
		status int
		error  string
	}{
		{"no Basic header", "", good, 401, "invalid_client"},
		{"wrong client secret", basic("terraform:nope"), good, 401, "invalid_client"},
		{"unknown client", basic("other:" + DefaultClientSecret), good, 401, "invalid_client"},
		{"no colon", basic("terraform"), good, 401, "invalid_client"},
		{"not base64", "Basic !!!", good, 401, "invalid_client"},
		{"Bearer instead of Basic", "Bearer " + DefaultClientSecret, good, 401, "invalid_client"},
		{"client checked first", "", url.Values{"grant_type": {"client_credentials"}}, 401, "invalid_client"},
		{"other grant type", "-", url.Values{"grant_type": {"client_credentials"}, "username": {DefaultUserName}, "password": {DefaultUserPassword}}, 400, "unsupported_grant_type"},
		{"no grant type", "-", url.Values{"username": {DefaultUserName}, "password": {DefaultUserPassword}}, 400, "unsupported_grant_type"},
		{"no username", "-", url.Values{"grant_type": {"password"}, "password": {DefaultUserPassword}}, 400, "invalid_request"},
		{"no password", "-", url.Values{"grant_type": {"password"}, "username": {"alice"}}, 400, "invalid_request"},
		{"wrong password", "-", url.Values{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {DefaultViewerPassword}}, 400, "invalid_grant"},
		{"unknown user", "-", url.Values{"grant_type": {"password"}, "username": {"mallory"}, "password": {"x"}}, 400, "invalid_grant"},
		{"admin API user", "-", url.Values{"grant_type": {"password"}, "username": {DefaultAdminName}, "password": {DefaultAdminPassword}}, 400, "invalid_grant"},
	}
	et := newEmuTester(t, Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := et.request(http.MethodPost, ropcPath, strings.NewReader(tc.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept", "application/json")
			switch tc.auth {
			case "-":
				req.SetBasicAuth(DefaultClientID, DefaultClientSecret)
			case "":
			default:
				req.Header.Set("Authorization", tc.auth)
			}
			res := et.send(req)
			body := res.wantJSON(t, tc.status, "application/json")
			if body["error"] != tc.error {
				t.Errorf("error = %v, want %s", body["error"], tc.error)
			}
			if _, ok := body["code"]; ok {
				t.Errorf("the token endpoint answered with a problem body: %v", body)
			}
			if res.header.Get("Set-Cookie") != "" {
				t.Errorf("a failed grant set a cookie")
			}
		})
	}
	if s := et.stats(); s.Logins["oauth"] != 0 || s.LiveTokens != 0 {
		t.Errorf("after failed grants: logins %v, liveTokens %d; want 0", s.Logins, s.LiveTokens)
	}
}

// TestAuthTokenUse checks B4 and B5: Bearer header and cookie are both accepted.
func TestAuthTokenUse(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	info := et.e.PlatformURL(et.srv.URL) + "/auth/tokens/current"

	t.Run("Bearer", func(t *testing.T) {
		body := et.bearer(http.MethodGet, info, token).wantJSON(t, 200, "application/hal+json")
		if body["accessToken"] != token {
			t.Errorf("accessToken = %v, want the caller's token", body["accessToken"])
		}
	})
	t.Run("cookie", func(t *testing.T) {
		req := et.request(http.MethodGet, info, nil)
		req.AddCookie(&http.Cookie{Name: "serviceAccessToken", Value: token})
		body := et.send(req).wantJSON(t, 200, "application/hal+json")
		if body["accessToken"] != token {
			t.Errorf("accessToken = %v, want the caller's token", body["accessToken"])
		}
	})
	for _, tc := range []struct{ name, auth, cookie string }{
		{"nothing", "", ""},
		{"unknown Bearer", "Bearer at-unknown", ""},
		{"empty Bearer", "Bearer ", ""},
		{"Basic instead of Bearer", "Basic " + token, ""},
		{"unknown cookie", "", "at-unknown"},
		{"admin session token", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := et.request(http.MethodGet, info, nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.cookie != "" {
				req.AddCookie(&http.Cookie{Name: "serviceAccessToken", Value: tc.cookie})
			}
			if tc.name == "admin session token" {
				req.Header.Set("token", et.adminLogin(DefaultAdminName, DefaultAdminPassword))
			}
			et.send(req).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
		})
	}
}

func TestAuthTokenInfoExtendRemove(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	base := et.e.PlatformURL(et.srv.URL)
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)

	before := time.Now()
	info := et.bearer(http.MethodGet, base+"/auth/tokens/current", token).wantJSON(t, 200, "application/hal+json")
	emuWantKeys(t, info, "accessToken", "expiresAt", "expiresIn", "_links")
	expiresAt := emuWantTime(t, info["expiresAt"])
	if d := expiresAt.Sub(before); d < 898*time.Second || d > 901*time.Second {
		t.Errorf("expiresAt is %v ahead, want about 900s", d)
	}
	if in, _ := info["expiresIn"].(float64); in < 898 || in > 900 {
		t.Errorf("expiresIn = %v, want about 900", info["expiresIn"])
	}
	links := emuObject(t, info["_links"])
	emuWantKeys(t, links, "self", "auth-token:extend", "auth-token:removal")
	if self, _ := links["self"].(map[string]any); self["href"] != base+"/auth/tokens/current" {
		t.Errorf("self = %v", links["self"])
	}
	extend := emuString(t, emuHrefs(t, links, "auth-token:extend")[0]["href"])
	removal := emuString(t, emuHrefs(t, links, "auth-token:removal")[0]["href"])
	for _, h := range []string{extend, removal} {
		if !strings.HasPrefix(h, base+"/") {
			t.Errorf("href %q is not an absolute URL on %s", h, base)
		}
	}

	// B6: extend moves expiresAt to now + lifetime and keeps the token.
	time.Sleep(20 * time.Millisecond)
	ext := et.bearer(http.MethodPost, extend, token).wantJSON(t, 200, "application/hal+json")
	emuWantKeys(t, ext, "accessToken", "expiresAt", "expiresIn", "_links")
	if ext["accessToken"] != token {
		t.Errorf("extend changed the token")
	}
	if moved := emuWantTime(t, ext["expiresAt"]); !moved.After(expiresAt) {
		t.Errorf("extend: expiresAt %v, want after %v", moved, expiresAt)
	}
	// Through the cookie too.
	req := et.request(http.MethodPost, extend, nil)
	req.AddCookie(&http.Cookie{Name: "serviceAccessToken", Value: token})
	et.send(req).wantStatus(t, 200)

	// B7: removal, then the token is dead everywhere.
	res := et.bearer(http.MethodDelete, removal, token)
	res.wantStatus(t, http.StatusNoContent)
	if len(res.body) != 0 {
		t.Errorf("204 with a body: %s", res.body)
	}
	et.bearer(http.MethodGet, base+"/auth/tokens/current", token).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
	et.bearer(http.MethodPost, extend, token).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
	et.bearer(http.MethodDelete, removal, token).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
	if n := et.stats().LiveTokens; n != 0 {
		t.Errorf("liveTokens after removal = %d, want 0", n)
	}
	et.bearer(http.MethodPut, removal, token).wantProblem(t, http.StatusMethodNotAllowed, "auth/METHOD_NOT_ALLOWED", "")
}

func TestAuthTokenLifetime(t *testing.T) {
	t.Parallel()
	const lifetime = time.Second
	et := newEmuTester(t, Options{TokenLifetime: lifetime})
	base := et.e.PlatformURL(et.srv.URL)
	info := base + "/auth/tokens/current"

	body := et.grant(url.Values{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {DefaultUserPassword}}).wantJSON(t, 200, "application/json")
	if body["expires_in"] != float64(1) {
		t.Errorf("expires_in = %v, want 1", body["expires_in"])
	}
	kept := emuString(t, body["access_token"])
	lapsed := et.platformLogin(DefaultUserName, DefaultUserPassword)

	time.Sleep(lifetime * 6 / 10)
	et.bearer(http.MethodPost, info+"/extension", kept).wantStatus(t, 200)
	time.Sleep(lifetime * 6 / 10) // 1.2 lifetimes after the grant
	et.bearer(http.MethodGet, info, kept).wantStatus(t, 200)
	et.bearer(http.MethodGet, info, lapsed).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
	// An expired token cannot be extended: the client must run the grant again.
	et.bearer(http.MethodPost, info+"/extension", lapsed).wantProblem(t, 401, "auth/UNAUTHORIZED", "")
	if n := et.stats().LiveTokens; n != 1 {
		t.Errorf("liveTokens = %d, want 1", n)
	}
}

// TestAuthRefusalForms: the readings problemRefusals, textRefusals and
// nestedRefusals answer a refused password grant and a refused administrator login
// in their form, with the contract's status, and without either no other answer.
func TestAuthRefusalForms(t *testing.T) {
	t.Parallel()
	wrong := url.Values{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {"wrong"}}
	for _, tc := range []struct {
		reading, mediaType, grantBody, loginBody string
	}{
		{"problemRefusals", "application/problem+json", `"type":"https://identity.example/problems/invalid-grant"`,
			`"detail":"unknown user or wrong password"`},
		{"textRefusals", "text/plain", "400 Bad Request: unknown user or wrong password",
			"401 Unauthorized: unknown user or wrong password"},
		{"nestedRefusals", "application/json", `{"error":{"code":"invalid_grant","message":"unknown user or wrong password"}}`,
			`{"error":{"code":"INVALID_CREDENTIALS","message":"unknown user or wrong password"}}`},
	} {
		t.Run(tc.reading, func(t *testing.T) {
			t.Parallel()
			var readings Readings
			if err := readings.Set(tc.reading); err != nil {
				t.Fatal(err)
			}
			et := newEmuTester(t, Options{Faults: Faults{Readings: readings}})
			for _, res := range []struct {
				got        *emuResponse
				status     int
				body, what string
			}{
				{et.grant(wrong), http.StatusBadRequest, tc.grantBody, "refused grant"},
				{et.adminForm(url.Values{"user": {DefaultAdminName}, "pass": {"wrong"}, "r": {"createsession"}}),
					http.StatusUnauthorized, tc.loginBody, "refused login"},
			} {
				mt, _, _ := strings.Cut(res.got.header.Get("Content-Type"), ";")
				if res.got.status != res.status || mt != tc.mediaType || !strings.Contains(string(res.got.body), res.body) {
					t.Errorf("%s: %d %s %s, want %d %s with %s", res.what, res.got.status, mt, res.got.body, res.status,
						tc.mediaType, res.body)
				}
			}
			if tok := et.platformLogin(DefaultUserName, DefaultUserPassword); tok == "" {
				t.Error("the right password was refused")
			}
		})
	}
}

// TestAuthLinkHostName: with Options.AuthLinkHostName the token flow's links name
// that host, with the port the request named; the other links keep the request's.
func TestAuthLinkHostName(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{AuthLinkHostName: "platform.example"})
	port := et.srv.URL[strings.LastIndex(et.srv.URL, ":"):]
	for _, path := range []string{authPath, identityProvidersURL} {
		body := string(et.do(http.MethodGet, path, nil, nil).body)
		if !strings.Contains(body, "http://platform.example"+port+"/auth/") || strings.Contains(body, et.srv.URL) {
			t.Errorf("%s names another host than platform.example%s: %s", path, port, body)
		}
	}
}
