package main

// Conformance, section B of the contract: the platform token flow.

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// ---------------------------------------------------------------------------
// §B Platform token flow

func TestConformanceAuthDiscovery(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	r := e.do(t, http.MethodGet, e.PlatformURL+"/auth", nil).want(t, http.StatusOK)
	root := r.obj(t)
	links := root["_links"]
	if self := selfLink(t, links); self != e.PlatformURL+"/auth" {
		t.Errorf("GET /auth self = %q, want %q", self, e.PlatformURL+"/auth")
	}
	idps := linkArray(t, links, "auth:identity-providers")
	var current string
	for _, l := range linkArray(t, links, "auth:token") {
		e.absoluteOn(t, str(l["href"]))
		if l["name"] == "current" {
			current = str(l["href"])
		}
	}
	if len(idps) == 0 || current == "" {
		t.Fatalf("GET /auth = %s: want auth:identity-providers and an auth:token named current", r.body)
	}
	e.absoluteOn(t, str(idps[0]["href"]))

	pr := e.do(t, http.MethodGet, str(idps[0]["href"]), nil).want(t, http.StatusOK)
	providers := arr(at(pr.obj(t), "_embedded", "auth:identity-provider"))
	if len(providers) < 2 {
		t.Fatalf("%s: want at least two providers", pr)
	}
	if at(providers[0], "kind") == "oauth" {
		t.Errorf("first provider %v is oauth; the emulator lists a non-oauth provider first", providers[0])
	}
	var ropc string
	for _, p := range providers {
		if at(p, "kind") == "oauth" {
			if l := linkArray(t, at(p, "_links"), "auth:ropc-default"); len(l) > 0 {
				ropc = str(l[0]["href"])
				break
			}
		}
	}
	if ropc == "" {
		t.Fatalf("%s: no oauth provider with auth:ropc-default", pr)
	}
	e.absoluteOn(t, ropc)
}

func TestConformancePasswordGrant(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	ropc, current := e.discover(t)
	valid := func() form {
		return form{"grant_type": {"password"}, "username": {emulatortest.Username}, "password": {emulatortest.Password}}
	}
	without := func(k string) form { f := valid(); f.Del(k); return f }
	with := func(k, v string) form { f := valid(); f.Set(k, v); return f }
	wrongBasic := "Basic " + base64.StdEncoding.EncodeToString([]byte("terraform:wrong"))
	unknownClient := "Basic " + base64.StdEncoding.EncodeToString([]byte("other:"+emulatortest.ClientSecret))

	for _, tc := range []struct {
		name   string
		f      form
		auth   string
		status int
		code   string
	}{
		{"no Basic header", valid(), "", 401, "invalid_client"},
		{"wrong client secret", valid(), wrongBasic, 401, "invalid_client"},
		{"unknown client", valid(), unknownClient, 401, "invalid_client"},
		{"Basic not base64", valid(), "Basic %%%", 401, "invalid_client"},
		{"Bearer instead of Basic", valid(), "Bearer dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=", 401, "invalid_client"},
		{"no username", without("username"), basicTerraform, 400, "invalid_request"},
		{"no password", without("password"), basicTerraform, 400, "invalid_request"},
		{"grant_type client_credentials", with("grant_type", "client_credentials"), basicTerraform, 400, "unsupported_grant_type"},
		{"no grant_type", without("grant_type"), basicTerraform, 400, "unsupported_grant_type"},
		{"wrong password", with("password", "nope"), basicTerraform, 400, "invalid_grant"},
		{"unknown user", with("username", "mallory"), basicTerraform, 400, "invalid_grant"},
		// admin has no platform account (user table, section G).
		{"admin API account", form{"grant_type": {"password"}, "username": {emulatortest.AdminUsername}, "password": {emulatortest.AdminPassword}}, basicTerraform, 400, "invalid_grant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.auth != "" {
				hdr = []string{"Authorization", tc.auth}
			}
			r := e.do(t, http.MethodPost, ropc, tc.f, hdr...)
			r.oauthError(t, tc.status, tc.code)
			if len(r.cookies) > 0 {
				t.Errorf("%s: a failed grant set cookies %v", r, r.cookies)
			}
		})
	}

	for _, user := range []string{"alice", "viewer"} {
		// Unknown form fields are ignored.
		r := e.do(t, http.MethodPost, ropc, form{"grant_type": {"password"}, "username": {user}, "password": {passwordOf(user)}, "extra": {"x"}},
			"Authorization", basicTerraform).want(t, http.StatusOK)
		if mt := r.mediaType(); mt != "application/json" {
			t.Errorf("token response Content-Type %q", mt)
		}
		m := r.obj(t)
		tok := str(m["access_token"])
		if n, ok := num(m["expires_in"]); tok == "" || m["token_type"] != "Bearer" || !ok || n != 900 || m["scope"] != "openid" {
			t.Errorf("token response = %s, want access_token, token_type Bearer, expires_in 900, scope openid", r.body)
		}
		var found bool
		for _, c := range r.cookies {
			if c.Name == "serviceAccessToken" {
				found = true
				if c.Value != tok || c.Path != "/" || !c.HttpOnly {
					t.Errorf("Set-Cookie %q, want serviceAccessToken=<token>; Path=/; HttpOnly", c.Raw)
				}
			}
		}
		if !found {
			t.Errorf("token response sets no serviceAccessToken cookie: %v", r.header.Values("Set-Cookie"))
		}
		// The token works as Bearer and as cookie.
		e.do(t, http.MethodGet, current, nil, bearer(tok)...).want(t, http.StatusOK)
		e.do(t, http.MethodGet, current, nil, cookie(tok)...).want(t, http.StatusOK)
	}
}

func TestConformanceTokenInfo(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	_, current := e.discover(t)
	tok := e.newToken(t, "alice")

	info := func(t *testing.T, r *reply) (exp time.Time, extend, removal string) {
		t.Helper()
		m := r.want(t, http.StatusOK).obj(t)
		if m["accessToken"] != tok {
			t.Errorf("accessToken = %v, want the token", m["accessToken"])
		}
		exp = timestamp(t, "expiresAt", m["expiresAt"])
		n, ok := num(m["expiresIn"])
		if !ok || n < 890 || n > 900 {
			t.Errorf("expiresIn = %v, want an integer just under 900", m["expiresIn"])
		}
		if d := time.Until(exp); d < 880*time.Second || d > 901*time.Second {
			t.Errorf("expiresAt %v is not ~900 s ahead", exp)
		}
		links := m["_links"]
		if s := selfLink(t, links); s != current {
			t.Errorf("self = %q, want %q", s, current)
		}
		if l := linkArray(t, links, "auth-token:extend"); len(l) > 0 {
			extend = str(l[0]["href"])
			e.absoluteOn(t, extend)
		}
		if l := linkArray(t, links, "auth-token:removal"); len(l) > 0 {
			removal = str(l[0]["href"])
			e.absoluteOn(t, removal)
		}
		return exp, extend, removal
	}

	exp1, extend, removal := info(t, e.do(t, http.MethodGet, current, nil, bearer(tok)...))
	info(t, e.do(t, http.MethodGet, current, nil, cookie(tok)...))

	e.do(t, http.MethodGet, current, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, current, nil, bearer("unknown")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, current, nil, cookie("unknown")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodPost, extend, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodDelete, removal, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")

	time.Sleep(20 * time.Millisecond) // timestamps have millisecond resolution
	exp2, _, _ := info(t, e.do(t, http.MethodPost, extend, nil, bearer(tok)...))
	if !exp2.After(exp1) {
		t.Errorf("extend: expiresAt %v did not move past %v", exp2, exp1)
	}
	time.Sleep(20 * time.Millisecond)
	exp3, _, _ := info(t, e.do(t, http.MethodPost, extend, nil, cookie(tok)...))
	if !exp3.After(exp2) {
		t.Errorf("extend by cookie: expiresAt %v did not move past %v", exp3, exp2)
	}
	exp4, _, _ := info(t, e.do(t, http.MethodGet, current, nil, bearer(tok)...))
	if !exp4.Equal(exp3) {
		t.Errorf("GET after extend: expiresAt %v, want %v", exp4, exp3)
	}

	r := e.do(t, http.MethodDelete, removal, nil, bearer(tok)...)
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("%s: want 204 without body", r)
	}
	e.do(t, http.MethodGet, current, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodPost, extend, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodDelete, removal, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")

	// Removal by cookie works too.
	tok2 := e.newToken(t, "viewer")
	if r := e.do(t, http.MethodDelete, removal, nil, cookie(tok2)...); r.status != http.StatusNoContent {
		t.Errorf("%s: want 204", r)
	}
	e.do(t, http.MethodGet, current, nil, cookie(tok2)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}

// TestConformanceTokenLifetime: a token expires after expires_in seconds and an
// expired token cannot be extended.
func TestConformanceTokenLifetime(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-token-lifetime", "1s")
	_, current := e.discover(t)
	r := e.grant(t, emulatortest.Username, emulatortest.Password).want(t, http.StatusOK)
	m := r.obj(t)
	tok := str(m["access_token"])
	if n, _ := num(m["expires_in"]); n != 1 {
		t.Errorf("expires_in = %v, want 1", m["expires_in"])
	}
	info := e.do(t, http.MethodGet, current, nil, bearer(tok)...).want(t, http.StatusOK).obj(t)
	extend := str(at(info, "_links", "auth-token:extend", 0, "href"))
	time.Sleep(1200 * time.Millisecond)
	e.do(t, http.MethodGet, current, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodPost, extend, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}

// TestConformanceUnauthenticated: every authenticated platform call (areas C–F, the
// registry) answers 401 auth/UNAUTHORIZED without a valid token, and accepts both
// the Bearer header and the cookie.
func TestConformanceUnauthenticated(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	tok := e.token(t, "alice")
	cmd := e.control(t, "commands", map[string]any{"type": "publishing:purge", "creator": "alice",
		"steps": []any{map[string]any{"lifecycle": "finished", "progress": 100}}})
	var cmdURL string
	if cmd.status < 300 {
		cmdURL = str(at(cmd.obj(t), "_links", "self", "href"))
	}
	calls := []struct {
		method, url string
		body        any
	}{
		{http.MethodGet, e.PlatformURL + "/apis/registry;version=0/serviceroots", nil},
		{http.MethodGet, e.PublishingURL + "/core/health", nil},
		{http.MethodPost, e.PublishingURL + "/scores", map[string]any{"scoreUrl": "https://cdn.example/a.sib"}},
		{http.MethodGet, e.PublishingURL + "/scores", nil},
		{http.MethodPost, e.PublishingURL + "/scores/count", map[string]any{}},
		{http.MethodGet, e.PublishingURL + "/scores/count", nil},
		{http.MethodGet, e.PublishingURL + "/scores/x", nil},
		{http.MethodDelete, e.PublishingURL + "/scores/x", nil},
		{http.MethodPost, e.PublishingURL + "/scores/x/view", map[string]any{}},
		{http.MethodGet, e.template(t, "datamodel:system-model", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1"}), nil},
		{http.MethodGet, e.template(t, "datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "clip-1"}), nil},
		{http.MethodGet, e.template(t, "datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetType": "sequence"}), nil},
		{http.MethodGet, e.template(t, "command:command-by-id", map[string]string{"id": "nope"}), nil},
	}
	if cmdURL != "" {
		calls = append(calls, struct {
			method, url string
			body        any
		}{http.MethodGet, cmdURL, nil})
	} else {
		t.Errorf("%s: cannot create a command", cmd)
	}
	for _, c := range calls {
		e.do(t, c.method, c.url, c.body).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		e.do(t, c.method, c.url, c.body, bearer("bogus")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		e.do(t, c.method, c.url, c.body, cookie("bogus")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		e.do(t, c.method, c.url, c.body, "token", tok).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		if c.method == http.MethodGet {
			for _, hdr := range [][]string{bearer(tok), cookie(tok)} {
				if r := e.do(t, c.method, c.url, c.body, hdr...); r.status == http.StatusUnauthorized {
					t.Errorf("%s with %s: 401", r, hdr[0])
				}
			}
		}
	}
	// The admin API does not take platform tokens, nor the platform admin sessions.
	sess := e.adminLogin(t, emulatortest.AdminUsername, emulatortest.AdminPassword)
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(sess)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}
