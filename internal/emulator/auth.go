package emulator

// Section B of the contract: the platform token flow under platform_url.

import (
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"time"
)

const (
	authPath             = "/auth"
	identityProvidersURL = "/auth/identity-providers"
	ropcPath             = "/auth/oauth2/ropc/default"
	tokenInfoPath        = "/auth/tokens/current"
	tokenExtendPath      = "/auth/tokens/current/extension"
	// accessTokenCookie carries the token for clients with cookie support.
	accessTokenCookie = "serviceAccessToken"
)

type accessToken struct {
	user      *User
	expiresAt time.Time
	removed   bool
}

type authState struct {
	mu       sync.Mutex
	lifetime time.Duration
	tokens   map[string]*accessToken
}

func (a *authState) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens = map[string]*accessToken{}
}

func (t *accessToken) alive(now time.Time) bool { return !t.removed && now.Before(t.expiresAt) }

// live counts the tokens that are neither removed nor expired.
func (a *authState) live() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, now := 0, time.Now()
	for _, t := range a.tokens {
		if t.alive(now) {
			n++
		}
	}
	return n
}

func (a *authState) expireAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	for _, t := range a.tokens {
		if t.expiresAt.After(now) {
			t.expiresAt = now
		}
	}
}

func (e *Emulator) routeAuth() {
	e.auth.lifetime = e.opts.TokenLifetime
	e.handle("GET "+authPath, e.handleAuthRoot)
	e.handle("GET "+identityProvidersURL, e.handleIdentityProviders)
	e.handle("POST "+ropcPath, e.handlePasswordGrant)
	e.handle("GET "+tokenInfoPath, e.withToken(e.handleTokenInfo))
	e.handle("POST "+tokenExtendPath, e.withToken(e.handleTokenExtend))
	e.handle("DELETE "+tokenInfoPath, e.withToken(e.handleTokenRemoval))
}

// link is a HAL link object.
type link struct {
	Href      string `json:"href"`
	Name      string `json:"name,omitempty"`
	Templated bool   `json:"templated,omitempty"`
}

func links(href string) []link { return []link{{Href: href}} }

func (e *Emulator) handleAuthRoot(w http.ResponseWriter, r *http.Request) {
	base := baseURL(r)
	writeHAL(w, http.StatusOK, map[string]any{"_links": map[string]any{
		"self":                    link{Href: base + authPath},
		"auth:identity-providers": links(base + identityProvidersURL),
		"auth:token":              []link{{Href: base + tokenInfoPath, Name: "current"}},
	}})
}

func (e *Emulator) handleIdentityProviders(w http.ResponseWriter, r *http.Request) {
	base := baseURL(r)
	writeHAL(w, http.StatusOK, map[string]any{
		"_links": map[string]any{"self": link{Href: base + identityProvidersURL}},
		"_embedded": map[string]any{"auth:identity-provider": []any{
			// A non-oauth provider first, so that clients must choose.
			map[string]any{"kind": "saml", "_links": map[string]any{}},
			map[string]any{"kind": "oauth", "_links": map[string]any{"auth:ropc-default": links(base + ropcPath)}},
		}},
	})
}

// oauthError writes an OAuth 2.0 error body (RFC 6749 §5.2).
func oauthError(w http.ResponseWriter, status int, code, description string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="platform"`)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

// clientAuthenticated checks the application's Basic credential.
func (e *Emulator) clientAuthenticated(r *http.Request) bool {
	scheme, encoded, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return false
	}
	id, secret, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return false
	}
	for _, c := range e.opts.Clients {
		if c.ID == id && subtle.ConstantTimeCompare([]byte(c.Secret), []byte(secret)) == 1 {
			return true
		}
	}
	return false
}

func (e *Emulator) handlePasswordGrant(w http.ResponseWriter, r *http.Request) {
	if !e.clientAuthenticated(r) {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is not a valid form")
		return
	}
	form := r.PostForm
	if form.Get("grant_type") != "password" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", `grant_type must be "password"`)
		return
	}
	if form.Get("username") == "" || form.Get("password") == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "username and password are required")
		return
	}
	u := e.findUser(form.Get("username"))
	if u == nil || !u.Platform || subtle.ConstantTimeCompare([]byte(u.Password), []byte(form.Get("password"))) != 1 {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown user or wrong password")
		return
	}
	token := newToken("at-")
	e.auth.mu.Lock()
	e.auth.tokens[token] = &accessToken{user: u, expiresAt: time.Now().Add(e.auth.lifetime)}
	e.auth.mu.Unlock()
	e.stats.login(false)
	http.SetCookie(w, &http.Cookie{Name: accessTokenCookie, Value: token, Path: "/", HttpOnly: true})
	w.Header().Set("Cache-Control", "no-store")
	tokenType := "Bearer"
	if e.readings().LowercaseBearer {
		tokenType = "bearer" // contract §V8: RFC 6749 token types are case-insensitive
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": token,
		"token_type":   tokenType,
		"expires_in":   expiresInSeconds(e.auth.lifetime),
		"scope":        "openid",
	})
}

// expiresInSeconds is a lifetime in whole seconds, at least 1: a sub-second
// lifetime (tests only) must not read as "already expired".
func expiresInSeconds(d time.Duration) int { return max(1, int(d/time.Second)) }

// bearerOrCookie returns the access token a request carries.
func bearerOrCookie(r *http.Request) string {
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(token)
	}
	if c, err := r.Cookie(accessTokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// platformCaller authenticates a platform request (contract B4). On failure it
// writes 401 auth/UNAUTHORIZED and returns nil.
func (e *Emulator) platformCaller(w http.ResponseWriter, r *http.Request) (*User, string) {
	token := bearerOrCookie(r)
	e.auth.mu.Lock()
	t, ok := e.auth.tokens[token]
	ok = ok && t.alive(time.Now())
	e.auth.mu.Unlock()
	if !ok {
		if e.readings().ForbiddenWhenExpired {
			writeProblem(w, http.StatusForbidden, "auth", "FORBIDDEN", "missing, unknown, expired or removed access token", nil)
			return nil, ""
		}
		unauthorizedToken(w)
		return nil, ""
	}
	return t.user, token
}

// withToken wraps a handler that needs the caller's token.
func (e *Emulator) withToken(next func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if u, token := e.platformCaller(w, r); u != nil {
			next(w, r, token)
		}
	}
}

// withUser wraps a platform handler that needs the caller.
func (e *Emulator) withUser(next func(http.ResponseWriter, *http.Request, *User)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if u, _ := e.platformCaller(w, r); u != nil {
			next(w, r, u)
		}
	}
}

// tokenInfo renders the token information document (contract B5); with the
// IAMTokenExpiry reading (§V8) the expiry is given only as iamToken.expiresAt.
func (e *Emulator) tokenInfo(r *http.Request, token string, expiresAt time.Time) map[string]any {
	base := baseURL(r)
	if e.readings().IAMTokenExpiry {
		return map[string]any{
			"accessToken": token,
			"iamToken":    map[string]any{"expiresAt": formatTime(expiresAt)},
			"_links": map[string]any{
				"self":               link{Href: base + tokenInfoPath},
				"auth-token:extend":  links(base + tokenExtendPath),
				"auth-token:removal": links(base + tokenInfoPath),
			},
		}
	}
	return map[string]any{
		"accessToken": token,
		"expiresAt":   formatTime(expiresAt),
		"expiresIn":   max(0, int(time.Until(expiresAt).Round(time.Second)/time.Second)),
		"_links": map[string]any{
			"self":               link{Href: base + tokenInfoPath},
			"auth-token:extend":  links(base + tokenExtendPath),
			"auth-token:removal": links(base + tokenInfoPath),
		},
	}
}

// updateToken runs change on the caller's token under the lock, unless the token
// died (expired, removed or reset away) since withToken let the request in; it
// returns the token's expiry after the change and whether it was still alive.
func (e *Emulator) updateToken(token string, change func(*accessToken)) (time.Time, bool) {
	e.auth.mu.Lock()
	defer e.auth.mu.Unlock()
	t, ok := e.auth.tokens[token]
	if !ok || !t.alive(time.Now()) {
		return time.Time{}, false
	}
	if change != nil {
		change(t)
	}
	return t.expiresAt, true
}

func unauthorizedToken(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="platform"`)
	writeProblem(w, http.StatusUnauthorized, "auth", "UNAUTHORIZED",
		"missing, unknown, expired or removed access token", nil)
}

func (e *Emulator) handleTokenInfo(w http.ResponseWriter, r *http.Request, token string) {
	expiresAt, ok := e.updateToken(token, nil)
	if !ok {
		unauthorizedToken(w)
		return
	}
	writeHAL(w, http.StatusOK, e.tokenInfo(r, token, expiresAt))
}

// handleTokenExtend moves the expiry to now + lifetime; the token string stays.
func (e *Emulator) handleTokenExtend(w http.ResponseWriter, r *http.Request, token string) {
	expiresAt, ok := e.updateToken(token, func(t *accessToken) { t.expiresAt = time.Now().Add(e.auth.lifetime) })
	if !ok {
		unauthorizedToken(w)
		return
	}
	if e.readings().SeeOtherWrites {
		seeOther(w, baseURL(r)+tokenInfoPath)
		return
	}
	writeHAL(w, http.StatusOK, e.tokenInfo(r, token, expiresAt))
}

func (e *Emulator) handleTokenRemoval(w http.ResponseWriter, r *http.Request, token string) {
	if _, ok := e.updateToken(token, func(t *accessToken) { t.removed = true }); !ok {
		unauthorizedToken(w)
		return
	}
	if e.readings().SeeOtherWrites {
		seeOther(w, baseURL(r)+"/auth")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// seeOther answers a write that was carried out with 303 See Other to location
// (RFC 9110 §15.4.4; the reading seeOtherWrites).
func seeOther(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusSeeOther)
}
