package main

// Conformance, section A of the contract: the administrator API.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// ---------------------------------------------------------------------------
// §A Administrator API

func TestConformanceAdminLogin(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	login := e.AdminURL + "/login"

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			f     form
			field string
		}{
			{"no user", form{"pass": {emulatortest.AdminPassword}, "r": {"createsession"}}, "user"},
			{"no pass", form{"user": {"admin"}, "r": {"createsession"}}, "pass"},
			{"no r", form{"user": {emulatortest.AdminUsername}, "pass": {emulatortest.AdminPassword}}, "r"},
			{"r not createsession", form{"user": {emulatortest.AdminUsername}, "pass": {emulatortest.AdminPassword}, "r": {"deletesession"}}, "r"},
		} {
			e.do(t, http.MethodPost, login, tc.f).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", tc.field)
		}
	})
	t.Run("invalid credentials", func(t *testing.T) {
		for _, f := range []form{
			{"user": {"admin"}, "pass": {"wrong"}, "r": {"createsession"}},
			{"user": {"nobody"}, "pass": {emulatortest.AdminPassword}, "r": {"createsession"}},
			// alice has no administrator API account (user table, section G).
			{"user": {emulatortest.Username}, "pass": {emulatortest.Password}, "r": {"createsession"}},
		} {
			e.do(t, http.MethodPost, login, f).problem(t, http.StatusUnauthorized, "admin/INVALID_CREDENTIALS", "")
		}
	})
	t.Run("session lifecycle", func(t *testing.T) {
		// Unknown form fields are ignored.
		r := e.do(t, http.MethodPost, login, form{"user": {emulatortest.AdminUsername}, "pass": {emulatortest.AdminPassword}, "r": {"createsession"}, "extra": {"x"}}).want(t, http.StatusOK)
		m := r.obj(t)
		tok := str(m["token"])
		if tok == "" || m["user"] != "admin" {
			t.Fatalf("%s: want {token, user: admin}", r)
		}
		check := e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		if check["valid"] != true || check["user"] != "admin" {
			t.Errorf("checksession = %v, want valid true, user admin", check)
		}
		exp := timestamp(t, "checksession expiresAt", check["expiresAt"])
		if d := time.Until(exp); d < 29*time.Minute || d > 31*time.Minute {
			t.Errorf("checksession expiresAt %v is not ~30 min ahead (default idle expiry)", exp)
		}
		// The token travels in the header token, not as a Bearer credential.
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken("not-a-token")...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")

		out := e.do(t, http.MethodGet, e.AdminURL+"/logout", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		if len(out) != 1 || out["loggedOut"] != true {
			t.Errorf("logout = %v, want {loggedOut: true}", out)
		}
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/logout", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/logout", nil).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	})
	t.Run("viewer", func(t *testing.T) {
		tok := e.adminLogin(t, emulatortest.ViewerUsername, emulatortest.ViewerPassword)
		check := e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		if check["valid"] != true || check["user"] != "viewer" {
			t.Errorf("checksession = %v", check)
		}
		e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(tok)...).problem(t, http.StatusForbidden, "admin/FORBIDDEN", "")
		e.do(t, http.MethodPut, e.AdminURL+"/externalauth",
			map[string]any{"domainName": "X", "externalAuthenticationEnabled": false}, adminToken(tok)...).problem(t, http.StatusForbidden, "admin/FORBIDDEN", "")
	})
}

// TestConformanceAdminSessionIdle: sessions expire after the idle period and every
// authenticated request renews them.
func TestConformanceAdminSessionIdle(t *testing.T) {
	t.Parallel()
	// Margins of seconds, not milliseconds: a request on a loaded machine may take one.
	const idle = 4 * time.Second
	e := startEmulator(t, "-session-idle", idle.String())
	tok := e.adminLogin(t, emulatortest.AdminUsername, emulatortest.AdminPassword)
	var last time.Time
	for i := range 3 { // 3 × 0.6 idle > idle: only renewal keeps it alive
		time.Sleep(idle * 6 / 10)
		if i == 1 { // any authenticated request renews the session
			e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(tok)...).want(t, http.StatusOK)
			continue
		}
		m := e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		exp := timestamp(t, "expiresAt", m["expiresAt"])
		if d := time.Until(exp); d < idle*8/10 || d > idle*11/10 {
			t.Errorf("checksession expiresAt is %v ahead, want ~%v (idle expiry renewed)", d, idle)
		}
		if !exp.After(last) {
			t.Errorf("checksession expiresAt %v did not move past %v", exp, last)
		}
		last = exp
	}
	time.Sleep(idle * 13 / 10)
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
}

func TestConformanceExternalAuth(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	u := e.AdminURL + "/externalauth"
	tok := e.adminLogin(t, emulatortest.AdminUsername, emulatortest.AdminPassword)
	put := func(t *testing.T, doc any) *reply {
		t.Helper()
		return e.do(t, http.MethodPut, u, doc, adminToken(tok)...)
	}
	get := func(t *testing.T) map[string]any {
		t.Helper()
		return e.do(t, http.MethodGet, u, nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
	}
	equalDoc := func(t *testing.T, what string, got map[string]any, want string) {
		t.Helper()
		var w map[string]any
		dec := json.NewDecoder(strings.NewReader(want))
		dec.UseNumber()
		if err := dec.Decode(&w); err != nil {
			t.Fatal(err)
		}
		g, _ := json.Marshal(got)
		ws, _ := json.Marshal(w)
		if !bytes.Equal(g, ws) {
			t.Errorf("%s = %s, want %s", what, g, ws)
		}
	}

	// Order matters here: the initial state first.
	equalDoc(t, "initial GET", get(t), `{"domainName": "", "externalAuthenticationEnabled": false}`)
	e.do(t, http.MethodGet, u, nil).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodPut, u, map[string]any{"domainName": "X", "externalAuthenticationEnabled": true}).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")

	t.Run("bad documents", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			doc   any
			field string
		}{
			{"no domainName", map[string]any{"externalAuthenticationEnabled": true}, "domainName"},
			{"empty domainName", map[string]any{"domainName": "", "externalAuthenticationEnabled": true}, "domainName"},
			{"domainName not a string", map[string]any{"domainName": 7, "externalAuthenticationEnabled": true}, "domainName"},
			{"no externalAuthenticationEnabled", map[string]any{"domainName": "CORP"}, "externalAuthenticationEnabled"},
			{"externalAuthenticationEnabled not a boolean", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": "true"}, "externalAuthenticationEnabled"},
			{"gap at 1", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server1": "dc2"}, "server1"},
			{"gap at 2", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "server2": "dc3"}, "server2"},
			{"port 0", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": "0"}, "port0"},
			{"port 65536", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": "65536"}, "port0"},
			{"port not decimal", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": "ldap"}, "port0"},
			{"port as a number", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": 389}, "port0"},
			{"port of set 1", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "server1": "dc2", "port1": "-1"}, "port1"},
			{"enabled not a boolean", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "enabled0": "yes"}, "enabled0"},
			{"server not a string", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": 1}, "server0"},
			{"IPv6 server in brackets", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "[fd00::10]"}, "server0"},
			{"nine sets", func() map[string]any {
				m := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true}
				for i := range 9 {
					m[fmt.Sprintf("server%d", i)] = fmt.Sprintf("dc%d", i)
				}
				return m
			}(), "server8"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				put(t, tc.doc).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", tc.field)
			})
		}
		put(t, raw{"application/json", `{"domainName": "CORP",`}).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", "")
		put(t, raw{"application/json", `["domainName"]`}).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", "")
		// Nothing was stored by the failures.
		equalDoc(t, "GET after failures", get(t), `{"domainName": "", "externalAuthenticationEnabled": false}`)
	})

	t.Run("replace", func(t *testing.T) {
		r := put(t, map[string]any{
			"domainName": "CORP", "externalAuthenticationEnabled": true,
			"server0": "dc1.corp.example", "port0": "389",
			"server1": "10.0.0.2", "port1": "636", "enabled1": false,
			"server2": "dc3.corp.example", "port2": "1", "enabled2": true,
			"unknownField": "ignored",
		}).want(t, http.StatusOK)
		want := `{"domainName": "CORP", "externalAuthenticationEnabled": true,
			"server0": "dc1.corp.example", "port0": "389", "enabled0": true,
			"server1": "10.0.0.2", "port1": "636", "enabled1": false,
			"server2": "dc3.corp.example", "port2": "1", "enabled2": true}`
		equalDoc(t, "PUT response", r.obj(t), want)
		equalDoc(t, "GET", get(t), want)

		// All eight sets, port 65535.
		all := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": false}
		for i := range 8 {
			all[fmt.Sprintf("server%d", i)] = fmt.Sprintf("dc%d", i)
			all[fmt.Sprintf("port%d", i)] = "65535"
		}
		doc := put(t, all).want(t, http.StatusOK).obj(t)
		if len(doc) != 2+3*8 || doc["enabled7"] != true || doc["port7"] != "65535" {
			t.Errorf("PUT of 8 sets returned %v", doc)
		}

		// Sets not sent are removed.
		r = put(t, map[string]any{"domainName": "OTHER", "externalAuthenticationEnabled": false, "server0": "dc9"}).want(t, http.StatusOK)
		equalDoc(t, "PUT response", r.obj(t), `{"domainName": "OTHER", "externalAuthenticationEnabled": false, "server0": "dc9", "enabled0": true}`)
		equalDoc(t, "GET", get(t), `{"domainName": "OTHER", "externalAuthenticationEnabled": false, "server0": "dc9", "enabled0": true}`)
		put(t, map[string]any{"domainName": "OTHER", "externalAuthenticationEnabled": true}).want(t, http.StatusOK)
		equalDoc(t, "GET", get(t), `{"domainName": "OTHER", "externalAuthenticationEnabled": true}`)
	})
}

// TestConformanceSettingsReadings: the program serves the readings of the settings
// answers (-reading), as WIRE.md describes them.
func TestConformanceSettingsReadings(t *testing.T) {
	t.Parallel()
	doc := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": false,
		"server0": "dc1.corp.example", "port0": "389", "enabled0": false}
	for _, tc := range []struct {
		reading string
		check   func(t *testing.T, got map[string]any)
	}{
		{"allServerSlots", func(t *testing.T, got map[string]any) {
			if len(got) != 2+3*8 || got["server0"] != "dc1.corp.example" || got["server7"] != "" || got["port7"] != "" || got["enabled7"] != false {
				t.Errorf("settings %v, want all eight slots, the unused ones empty", got)
			}
		}},
		{"omitEmptyAdminMembers", func(t *testing.T, got map[string]any) {
			if len(got) != 3 || got["domainName"] != "CORP" || got["server0"] != "dc1.corp.example" || got["port0"] != "389" {
				t.Errorf("settings %v, want no member whose value is false, zero or empty", got)
			}
		}},
		{"settingsExtraFields", func(t *testing.T, got map[string]any) {
			// The PUT left out the start's members beyond the contract's: they are gone.
			if len(got) != 5 || got["searchBase"] != nil {
				t.Errorf("settings %v, want those of the PUT alone", got)
			}
		}},
	} {
		t.Run(tc.reading, func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t, "-reading", tc.reading)
			tok := e.adminLogin(t, emulatortest.AdminUsername, emulatortest.AdminPassword)
			u := e.AdminURL + "/externalauth"
			if tc.reading == "settingsExtraFields" {
				if got := e.do(t, http.MethodGet, u, nil, adminToken(tok)...).want(t, http.StatusOK).obj(t); got["searchBase"] != "dc=corp,dc=example" {
					t.Errorf("start settings %v, want searchBase among them", got)
				}
			}
			e.do(t, http.MethodPut, u, doc, adminToken(tok)...).want(t, http.StatusOK)
			tc.check(t, e.do(t, http.MethodGet, u, nil, adminToken(tok)...).want(t, http.StatusOK).obj(t))
		})
	}
}
