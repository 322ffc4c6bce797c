package emulator

// Section B of the contract: the platform token flow under platform_url.

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
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
	// moved is 0 while the token service is at its first home, else the status its
	// first home's paths answer since MoveTokenService (404 or 410).
	moved int
}

func (a *authState) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens = map[string]*accessToken{}
	a.moved = 0
}

// tokenHome is where the token service serves: the paths /auth links to.
type tokenHome struct{ identityProviders, ropc, tokenInfo, tokenExtend string }

// tokenHomes are the token service's first home and the one MoveTokenService moves it
// to, as an upgrade of the identity service may: a client that follows /auth finds
// either, and one that kept the links it found before the move meets 404 or 410.
var tokenHomes = [2]tokenHome{
	{identityProvidersURL, ropcPath, tokenInfoPath, tokenExtendPath},
	{MovedTokenService + "/identity-providers", MovedTokenService + "/oauth2/ropc/default",
		MovedTokenService + "/tokens/current", MovedTokenService + "/tokens/current/extension"},
}

// MovedTokenService is the path under which the token service serves once moved
// (MoveTokenService).
const MovedTokenService = "/auth/v2"

// home returns the token service's home in force.
func (a *authState) home() tokenHome {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.moved != 0 {
		return tokenHomes[1]
	}
	return tokenHomes[0]
}

// MoveTokenService moves the token service to its second home, as an upgrade of the
// identity service may while clients run: from now on /auth links to the new paths of
// the identity providers, the password grant and the token resource, and the old ones
// answer status (404, or 410 Gone; anything else is taken as 404). Tokens granted
// before stay valid. Reset moves it back.
func (e *Emulator) MoveTokenService(status int) {
	if status != http.StatusGone {
		status = http.StatusNotFound
	}
	e.auth.mu.Lock()
	defer e.auth.mu.Unlock()
	e.auth.moved = status
}

// atHome serves a route of the token service's home i while it is in force. The
// other home's paths answer as the platform answers an address it does not serve: the
// first home's, once moved, with the status of the move; the second's, before it, 404.
func (e *Emulator) atHome(i int, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e.auth.mu.Lock()
		moved := e.auth.moved
		e.auth.mu.Unlock()
		switch {
		case i == 0 && moved == http.StatusGone:
			writeProblem(w, http.StatusGone, "auth", "GONE", "the token service has moved: read /auth for its address",
				map[string]any{"path": r.URL.Path})
		case (i == 0) != (moved == 0):
			writeProblem(w, http.StatusNotFound, "auth", "NOT_FOUND", "no resource at "+r.URL.Path,
				map[string]any{"path": r.URL.Path})
		default:
			next(w, r)
		}
	}
}

// isGrantPath reports whether path is the password grant of either home.
func isGrantPath(path string) bool { return path == tokenHomes[0].ropc || path == tokenHomes[1].ropc }

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
	e.handle("GET "+authPath+"/{$}", e.handleAuthRootSlash)
	for i, home := range tokenHomes {
		e.handle("GET "+home.identityProviders, e.atHome(i, e.handleIdentityProviders))
		e.handle("POST "+home.ropc, e.atHome(i, e.handlePasswordGrant))
		e.handle("GET "+home.tokenInfo, e.atHome(i, e.withToken(e.handleTokenInfo)))
		e.handle("POST "+home.tokenExtend, e.atHome(i, e.withToken(e.handleTokenExtend)))
		e.handle("DELETE "+home.tokenInfo, e.atHome(i, e.withToken(e.handleTokenRemoval)))
	}
}

// authBase is scheme://host of the token flow's links: the request's, under
// Options.AuthLinkHostName when set.
func (e *Emulator) authBase(r *http.Request) string {
	base := baseURL(r)
	if e.opts.AuthLinkHostName == "" {
		return base
	}
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	if port := u.Port(); port != "" {
		u.Host = net.JoinHostPort(e.opts.AuthLinkHostName, port)
	} else {
		u.Host = e.opts.AuthLinkHostName
	}
	return u.String()
}

// link is a HAL link object.
type link struct {
	Href      string `json:"href"`
	Name      string `json:"name,omitempty"`
	Templated bool   `json:"templated,omitempty"`
}

func links(href string) []link { return []link{{Href: href}} }

func (e *Emulator) handleAuthRoot(w http.ResponseWriter, r *http.Request) {
	if e.readings().AuthRootSlash {
		// nginx's answer to a location ending in a slash asked for without it.
		w.Header().Set("Location", baseURL(r)+authPath+"/")
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusMovedPermanently)
		_, _ = w.Write([]byte("<html>\r\n<head><title>301 Moved Permanently</title></head>\r\n<body>\r\n" +
			"<center><h1>301 Moved Permanently</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"))
		return
	}
	e.writeAuthRoot(w, r, authPath)
}

// handleAuthRootSlash serves the discovery document at /auth/ under the reading
// authRootSlash; without it, /auth/ is an address the platform does not serve.
func (e *Emulator) handleAuthRootSlash(w http.ResponseWriter, r *http.Request) {
	if !e.readings().AuthRootSlash {
		writeProblem(w, http.StatusNotFound, namespaceFor(r.URL.Path), "NOT_FOUND", "no resource at "+r.URL.Path,
			map[string]any{"path": r.URL.Path})
		return
	}
	e.writeAuthRoot(w, r, authPath+"/")
}

// writeAuthRoot writes the discovery document, its self link at path.
func (e *Emulator) writeAuthRoot(w http.ResponseWriter, r *http.Request, path string) {
	base, home := e.authBase(r), e.auth.home()
	writeHAL(w, http.StatusOK, map[string]any{"_links": map[string]any{
		"self":                    link{Href: base + path},
		"auth:identity-providers": links(base + home.identityProviders),
		"auth:token":              []link{{Href: base + home.tokenInfo, Name: "current"}},
	}})
}

func (e *Emulator) handleIdentityProviders(w http.ResponseWriter, r *http.Request) {
	base, home := e.authBase(r), e.auth.home()
	writeHAL(w, http.StatusOK, map[string]any{
		"_links": map[string]any{"self": link{Href: base + home.identityProviders}},
		"_embedded": map[string]any{"auth:identity-provider": []any{
			// A non-oauth provider first, so that clients must choose.
			map[string]any{"kind": "saml", "_links": map[string]any{}},
			map[string]any{"kind": "oauth", "_links": map[string]any{"auth:ropc-default": links(base + home.ropc)}},
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

// refuseLogin writes a refused login: status, the OAuth error code (or the platform's
// code for the administrator login), and message, in the form the readings choose
// (contract §V7): RFC 9457 problem+json, plain text or {"error": {"code", "message"}};
// with none of them, write is the contract's own form.
func (e *Emulator) refuseLogin(w http.ResponseWriter, status int, code, message string, write func()) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="platform"`)
	}
	switch readings := e.readings(); {
	case readings.ProblemRefusals:
		body, _ := json.Marshal(map[string]any{
			"type":   "https://identity.example/problems/" + strings.ToLower(strings.ReplaceAll(code, "_", "-")),
			"title":  http.StatusText(status),
			"status": status,
			"detail": message,
		})
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	case readings.TextRefusals:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, "%d %s: %s", status, http.StatusText(status), message)
	case readings.NestedRefusals:
		writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": message}})
	default:
		write()
	}
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
		e.refuseLogin(w, http.StatusUnauthorized, "invalid_client", "client authentication failed", func() {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		})
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
		e.refuseLogin(w, http.StatusBadRequest, "invalid_grant", "unknown user or wrong password", func() {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown user or wrong password")
		})
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
	base, home := e.authBase(r), e.auth.home()
	tokenLinks := map[string]any{
		"self":               link{Href: base + home.tokenInfo},
		"auth-token:extend":  links(base + home.tokenExtend),
		"auth-token:removal": links(base + home.tokenInfo),
	}
	if e.readings().IAMTokenExpiry {
		return map[string]any{
			"accessToken": token,
			"iamToken":    map[string]any{"expiresAt": formatTime(expiresAt)},
			"_links":      tokenLinks,
		}
	}
	return map[string]any{
		"accessToken": token,
		"expiresAt":   formatTime(expiresAt),
		"expiresIn":   max(0, int(time.Until(expiresAt).Round(time.Second)/time.Second)),
		"_links":      tokenLinks,
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
		seeOther(w, e.authBase(r)+e.auth.home().tokenInfo)
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
		seeOther(w, e.authBase(r)+"/auth")
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
