package client

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakePlatform is a small hand-written platform for unit tests that must
// control the wire precisely (faults, timings, odd bodies). The emulator-backed
// tests cover the real contract.
type fakePlatform struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	counts   map[string]int       // "METHOD path" → requests
	tokens   map[string]time.Time // live access tokens → expiry
	sessions map[string]bool      // live admin sessions
	seq      int
	lifetime int // token lifetime in seconds
	handlers map[string]http.HandlerFunc
	requests []*http.Request
}

const (
	fakeClientID     = "app"
	fakeClientSecret = "app-secret-value"
	fakeUser         = "carol"
	fakePassword     = "carol-password-value"
	fakeAdminUser    = "root"
	fakeAdminPass    = "root-password-value"
)

func newFakePlatform(t *testing.T) *fakePlatform {
	t.Helper()
	f := &fakePlatform{
		t: t, counts: map[string]int{}, tokens: map[string]time.Time{},
		sessions: map[string]bool{}, lifetime: 900, handlers: map[string]http.HandlerFunc{},
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// handle overrides the handler of "METHOD path".
func (f *fakePlatform) handle(route string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[route] = h
}

func (f *fakePlatform) count(route string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[route]
}

func (f *fakePlatform) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.counts {
		n += c
	}
	return n
}

func (f *fakePlatform) liveTokens() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, exp := range f.tokens {
		if time.Now().Before(exp) {
			n++
		}
	}
	return n
}

func (f *fakePlatform) config() Config {
	return Config{
		AdminURL: f.srv.URL + "/api/v1", AdminUsername: fakeAdminUser, AdminPassword: fakeAdminPass,
		PlatformURL: f.srv.URL, ClientID: fakeClientID, ClientSecret: fakeClientSecret,
		Username: fakeUser, Password: fakePassword,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond,
	}
}

const fakeScores = "/api/v1/apis/media.publishing;version=2;realm=global/scores"

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeProblem(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg, "status": status, "params": map[string]any{}})
}

// bearerOK checks the access token of r.
func (f *fakePlatform) bearerOK(r *http.Request) (string, bool) {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	defer f.mu.Unlock()
	exp, ok := f.tokens[tok]
	return tok, ok && time.Now().Before(exp)
}

func (f *fakePlatform) serve(w http.ResponseWriter, r *http.Request) {
	route := r.Method + " " + r.URL.EscapedPath()
	f.mu.Lock()
	f.counts[route]++
	f.requests = append(f.requests, r.Clone(r.Context()))
	h := f.handlers[route]
	f.mu.Unlock()
	if h != nil {
		h(w, r)
		return
	}
	base := "http://" + r.Host
	switch route {
	case "GET /auth":
		writeJSON(w, 200, map[string]any{"_links": map[string]any{
			"self":                    map[string]any{"href": base + "/auth"},
			"auth:identity-providers": map[string]any{"href": "/auth/idp"}, // single object, relative
			"auth:token": []any{
				map[string]any{"href": base + "/auth/tokens/other", "name": "other"},
				map[string]any{"href": base + "/auth/tokens/current", "name": "current"},
			},
		}})
	case "GET /auth/idp":
		writeJSON(w, 200, map[string]any{"_embedded": map[string]any{"auth:identity-provider": []any{
			map[string]any{"kind": "saml", "_links": map[string]any{"auth:ropc-default": []any{map[string]any{"href": base + "/wrong"}}}},
			map[string]any{"kind": "oauth", "_links": map[string]any{"auth:ropc-default": []any{map[string]any{"href": base + "/auth/ropc"}}}},
		}}})
	case "POST /auth/ropc":
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(fakeClientID+":"+fakeClientSecret))
		if r.Header.Get("Authorization") != want {
			writeJSON(w, 401, map[string]any{"error": "invalid_client", "error_description": "bad client"})
			return
		}
		if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "password" {
			writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
			return
		}
		if r.PostForm.Get("username") != fakeUser || r.PostForm.Get("password") != fakePassword {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "wrong user or password"})
			return
		}
		f.mu.Lock()
		f.seq++
		tok := fmt.Sprintf("tok-%d-secretish", f.seq)
		f.tokens[tok] = time.Now().Add(time.Duration(f.lifetime) * time.Second)
		lifetime := f.lifetime
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": lifetime})
	case "GET /auth/tokens/current", "POST /auth/tokens/current/extension":
		tok, ok := f.bearerOK(r)
		if !ok {
			writeProblem(w, 401, "auth/UNAUTHORIZED", "no valid token")
			return
		}
		f.mu.Lock()
		if r.Method == http.MethodPost {
			f.tokens[tok] = time.Now().Add(time.Duration(f.lifetime) * time.Second)
		}
		exp := f.tokens[tok]
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{
			"expiresAt": exp.UTC().Format(time.RFC3339Nano), "expiresIn": int(time.Until(exp).Round(time.Second).Seconds()),
			"_links": map[string]any{
				"self":               map[string]any{"href": base + "/auth/tokens/current"},
				"auth-token:extend":  []any{map[string]any{"href": base + "/auth/tokens/current/extension"}},
				"auth-token:removal": []any{map[string]any{"href": "/auth/tokens/current"}},
			}})
	case "DELETE /auth/tokens/current":
		tok, ok := f.bearerOK(r)
		if !ok {
			writeProblem(w, 401, "auth/UNAUTHORIZED", "no valid token")
			return
		}
		f.mu.Lock()
		delete(f.tokens, tok)
		f.mu.Unlock()
		w.WriteHeader(204)
	case "GET " + fakeScores:
		// The score collection answers (empty), so a 404 on a score's address
		// counts as the score being gone.
		writeJSON(w, 200, map[string]any{"scores": []any{}})
	case "POST /api/v1/login":
		_ = r.ParseForm()
		if r.PostForm.Get("user") != fakeAdminUser || r.PostForm.Get("pass") != fakeAdminPass || r.PostForm.Get("r") != "createsession" {
			writeProblem(w, 401, "admin/INVALID_CREDENTIALS", "wrong user or password")
			return
		}
		f.mu.Lock()
		f.seq++
		s := fmt.Sprintf("sess-%d-secretish", f.seq)
		f.sessions[s] = true
		f.mu.Unlock()
		writeJSON(w, 200, map[string]any{"token": s, "user": fakeAdminUser})
	case "GET /api/v1/logout", "GET /api/v1/checksession":
		f.mu.Lock()
		s := r.Header.Get("token")
		ok := f.sessions[s]
		if ok && strings.HasSuffix(route, "logout") {
			delete(f.sessions, s)
		}
		f.mu.Unlock()
		if !ok {
			writeProblem(w, 401, "admin/UNAUTHORIZED", "no session")
			return
		}
		writeJSON(w, 200, map[string]any{"valid": true, "user": fakeAdminUser})
	default:
		writeProblem(w, 404, "publishing/NOT_FOUND", "no route "+route)
	}
}

// scoreJSON returns a score object for the fake.
func scoreJSON(id, scoreURL, alias, status string) map[string]any {
	s := map[string]any{
		"id": id, "scoreUrl": scoreURL, "status": status,
		"publisher": map[string]any{"identity": map[string]any{"user": fakeUser}},
		"options":   map[string]any{"transpose": false},
		"createdAt": "2026-11-21T10:15:00.000Z", "updatedAt": "2026-11-21T10:15:00.000Z",
		"renderings": []any{},
	}
	if alias != "" {
		s["publisher"] = map[string]any{"scoreId": alias, "identity": map[string]any{"user": fakeUser}}
	}
	return s
}

// freshScoreJSON is scoreJSON of https://cdn/a.sib created now, on the fake's clock
// (this machine's).
func freshScoreJSON(id, alias, status string) map[string]any {
	s := scoreJSON(id, "https://cdn/a.sib", alias, status)
	s["createdAt"] = time.Now().UTC().Format(time.RFC3339Nano)
	return s
}
