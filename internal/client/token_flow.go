package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// AccessToken is a platform access token from the password grant.
type AccessToken struct {
	// Token is the opaque access token, sent as "Authorization: Bearer <Token>".
	Token string
	// TokenType is the token type, "Bearer".
	TokenType string
	// ExpiresAt is when the token stops working unless extended (zero when the
	// platform did not say).
	ExpiresAt time.Time

	lifetime time.Duration // expires_in as granted or extended
	links    *tokenLinks   // learned from the token information resource
}

// tokenLinks are the hrefs of a token's information resource.
type tokenLinks struct {
	extend  string
	removal string
}

// authEndpoints are the token-flow hrefs found by discovery.
type authEndpoints struct {
	ropc      string // auth:ropc-default of the first oauth provider
	tokenInfo string // auth:token named "current"
}

// identityProvider is an entry of the identity provider list.
type identityProvider struct {
	Kind  string `json:"kind"`
	Links Links  `json:"_links"`
}

// tokenInfoDoc is the token information resource (B5, B6).
type tokenInfoDoc struct {
	ExpiresAt flexTime `json:"expiresAt"`
	ExpiresIn *flexInt `json:"expiresIn"`
	// IAMToken carries the expiry on platforms that give it only there (contract §V8).
	IAMToken struct {
		ExpiresAt flexTime `json:"expiresAt"`
	} `json:"iamToken"`
	Links Links `json:"_links"`
}

// expiresAt is the expiry the document gives, on the platform's clock (zero: none).
func (d *tokenInfoDoc) expiresAt() time.Time {
	if !d.ExpiresAt.IsZero() {
		return d.ExpiresAt.Time
	}
	return d.IAMToken.ExpiresAt.Time
}

// basicCredential returns the application's basic credential: basic_token, or
// base64(client_id:client_secret).
func (c *Client) basicCredential() (string, error) {
	if c.cfg.BasicToken != "" {
		if c.cfg.ClientID != "" || c.cfg.ClientSecret != "" {
			return "", errors.New("basic_token conflicts with client_id/client_secret: both are set")
		}
		return sentBasicToken(c.cfg.BasicToken), nil
	}
	if c.cfg.ClientID == "" {
		return "", &MissingSettingError{Setting: "client_id", EnvVar: EnvClientID,
			Or: "basic_token", OrEnvVar: EnvBasicToken}
	}
	if c.cfg.ClientSecret == "" {
		return "", &MissingSettingError{Setting: "client_secret", EnvVar: EnvClientSecret,
			Or: "basic_token", OrEnvVar: EnvBasicToken}
	}
	return base64.StdEncoding.EncodeToString([]byte(c.cfg.ClientID + ":" + c.cfg.ClientSecret)), nil
}

// sentBasicToken is basic_token as the Authorization header carries it: without a
// "Basic " prefix (in any case, as the scheme is) and the whitespace at its ends.
func sentBasicToken(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > len("Basic ") && strings.EqualFold(s[:len("Basic ")], "Basic ") {
		s = strings.TrimSpace(s[len("Basic "):])
	}
	return s
}

// CheckBasicToken judges basic_token as the platform will decode it (standard Base64
// of client_id:client_secret, RFC 7617): problem says why it can never be taken,
// warning what in its decoded form the platform will likely refuse ("" for neither).
// Neither quotes the value or any part of it.
func CheckBasicToken(s string) (problem, warning string) {
	token := sentBasicToken(s)
	switch {
	case token == "":
		return "it is empty", ""
	case strings.Contains(token, ":"):
		return "it holds a ':', which Base64 never does: it looks like client_id:client_secret not yet encoded. " +
			"Encode it with `printf '%s' 'client_id:client_secret' | base64`, or set client_id and client_secret " +
			"instead", ""
	case strings.ContainsAny(token, "\r\n"):
		return "it holds a line break inside it, which Base64 text in a header cannot: `base64` wraps its output at " +
			"76 characters, so encode with `base64 -w0` (or `base64 | tr -d '\\n'`)", ""
	case strings.ContainsAny(token, " \t"):
		return "it holds a space or a tab inside it, which Base64 text does not", ""
	}
	decoded, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) && int(corrupt) < len(token) && strings.ContainsRune("-_", rune(token[corrupt])) {
			return fmt.Sprintf("its character %d is of URL-safe Base64, and HTTP Basic authentication takes the standard "+
				"alphabet (A-Z, a-z, 0-9, '+', '/', padded with '=')", int(corrupt)+1), ""
		}
		return "it is not Base64 (the standard alphabet A-Z, a-z, 0-9, '+', '/', padded with '=' to a multiple of four " +
			"characters)", ""
	}
	text := string(decoded)
	_, secret, ok := strings.Cut(text, ":")
	switch {
	case !ok:
		return "", "decoded, it holds no ':' between client_id and client_secret, so the platform finds no application " +
			"credential in it: encode client_id:client_secret"
	case strings.HasSuffix(secret, "\n"):
		return "", "decoded, its secret ends with a line break, which `echo` adds (`echo id:secret | base64`), and the " +
			"platform takes it as part of the secret: encode with `printf '%s' 'client_id:client_secret' | base64` " +
			"(or `echo -n`), unless the secret ends with one"
	}
	return "", ""
}

// authEndpoints discovers the token-flow hrefs once per client.
func (c *Client) authEndpoints(ctx context.Context) (*authEndpoints, error) {
	base, err := c.platformBase()
	if err != nil {
		return nil, err
	}
	return c.discovery.get(ctx, once(func(ctx context.Context) (*authEndpoints, error) {
		return c.discover(ctx, base)
	}))
}

// discover follows GET /auth to the identity providers and picks the first
// oauth provider with a password-grant link.
func (c *Client) discover(ctx context.Context, base string) (*authEndpoints, error) {
	var root struct {
		Links Links `json:"_links"`
	}
	resp, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/auth"}, &root)
	if err != nil {
		// The platform always serves /auth: a 404 there means the address is wrong.
		return nil, fmt.Errorf("platform token discovery failed: %w", c.addressError("platform_url", base, "/auth", err))
	}
	idp, ok := root.Links.First("auth:identity-providers")
	if !ok {
		return nil, fmt.Errorf("platform token discovery failed: %s has no auth:identity-providers link", pathOf(resp.url))
	}
	tokenLink, ok := root.Links.Named("auth:token", "current")
	if all := root.Links.relation("auth:token"); !ok && len(all) == 1 && all[0].Name == "" {
		// One auth:token link that carries no name at all: the one there is, since no
		// other can be meant (a platform that leaves the name out).
		tokenLink, ok = all[0].expanded(), true
	}
	if !ok {
		return nil, fmt.Errorf("platform token discovery failed: %s has no auth:token link named current", pathOf(resp.url))
	}
	ep := &authEndpoints{}
	if ep.tokenInfo, err = c.tokenFlowHref(resp.url, tokenLink.Href); err != nil {
		return nil, fmt.Errorf("platform token discovery failed: %w", err)
	}
	idpURL, err := c.tokenFlowHref(resp.url, idp.Href)
	if err != nil {
		return nil, fmt.Errorf("platform token discovery failed: %w", err)
	}

	var list struct {
		Embedded struct {
			Providers oneOrMany[identityProvider] `json:"auth:identity-provider"`
		} `json:"_embedded"`
	}
	resp, err = c.do(ctx, &request{method: http.MethodGet, url: idpURL}, &list)
	if err != nil {
		// /auth led there: a 404 means platform_url reaches something else than the platform.
		return nil, fmt.Errorf("platform token discovery failed: %w", c.addressError("platform_url", base, pathOf(mustParse(idpURL)), err))
	}
	for _, p := range list.Embedded.Providers {
		// A named value in any case (rule 20); a provider whose kind the answer does not
		// give is taken by its password grant link, which only an OAuth provider has.
		if !strings.EqualFold(p.Kind, "oauth") && p.Kind != "" {
			continue
		}
		if l, ok := p.Links.First("auth:ropc-default"); ok {
			if ep.ropc, err = c.tokenFlowHref(resp.url, l.Href); err != nil {
				return nil, fmt.Errorf("platform token discovery failed: %w", err)
			}
			return ep, nil
		}
	}
	return nil, fmt.Errorf("platform token discovery failed: no identity provider of kind oauth with an auth:ropc-default link at %s", pathOf(resp.url))
}

// grant runs the password grant and returns a new token.
func (c *Client) grant(ctx context.Context) (*AccessToken, error) {
	basic, err := c.basicCredential()
	if err != nil {
		return nil, err
	}
	var out struct {
		AccessToken string  `json:"access_token"`
		TokenType   string  `json:"token_type"`
		ExpiresIn   flexInt `json:"expires_in"`
	}
	var start time.Time
	resp, err := c.discovered(ctx, http.MethodPost, "auth:ropc-default", func(ep *authEndpoints) string { return ep.ropc },
		func(href string) (*response, error) {
			start = time.Now()
			return c.do(ctx, &request{
				method: http.MethodPost,
				url:    href,
				form: url.Values{
					"grant_type": {"password"},
					"username":   {c.cfg.Username},
					"password":   {c.cfg.Password},
				},
				basic:  basic,
				accept: "application/json",
				// A duplicate grant only leaves a spare token that expires on its own.
				retrySafe: true,
			}, &out)
		})
	if err != nil {
		var apiErr *APIError
		// A TLS port's 400 to plain HTTP refuses the address, not the credentials.
		if errors.As(err, &apiErr) && resp != nil && !apiErr.HTTPSOnly {
			if oauthErr := parseOAuthError(resp, apiErr); oauthErr != nil {
				oauthErr.Method, oauthErr.Path = apiErr.Method, apiErr.Path
				// A server may echo the form, password included, in its description.
				oauthErr.Description = c.maskText(oauthErr.Description)
				if credentialsRejected(oauthErr) {
					oauthErr.Spaced = c.cfg.spacedSettings("client_id", "client_secret", "basic_token", "username", "password")
				}
				return nil, oauthErr
			}
		}
		return nil, fmt.Errorf("platform token request failed: %w", err)
	}
	if out.AccessToken == "" && resp != nil {
		// Contract B3: the grant also sets the token as the cookie serviceAccessToken; an
		// answer whose body leaves it out still gives it there (rule 18).
		for _, ck := range (&http.Response{Header: resp.header}).Cookies() {
			if ck.Name == "serviceAccessToken" && ck.Value != "" {
				out.AccessToken = ck.Value
			}
		}
	}
	if out.AccessToken == "" {
		return nil, errors.New("platform token request failed: the answer holds no access_token")
	}
	tok := &AccessToken{Token: out.AccessToken, TokenType: out.TokenType}
	if tok.TokenType == "" {
		tok.TokenType = "Bearer"
	}
	if out.ExpiresIn > 0 {
		tok.lifetime = secondsOf(int64(out.ExpiresIn))
		tok.ExpiresAt = start.Add(tok.lifetime)
	}
	c.credLoads.loaded()
	logDebug(ctx, "platform token granted", map[string]any{"user": c.cfg.Username, "expires_in": int64(out.ExpiresIn)})
	// Learn the extend and removal links now, while time is plenty: removing the
	// token when Terraform ends the provider then takes one request, not two,
	// inside the short shutdown window. Failing here is not fatal: the links are
	// read again when needed.
	if links, err := c.readTokenLinks(ctx, tok); err == nil {
		tok.links = links
	}
	return tok, nil
}

// parseOAuthError reads the token endpoint's error answer apiErr: an RFC 6749 error
// body, or a refusal in any other form. A 400 or 401 to the password grant refuses
// the login (RFC 6749 §5.2) whatever words its body uses: RFC 9457 problem+json,
// plain text, {"error": {"code": …, "message": …}}, the platform's own problem; the
// OAuth error it names, if any, says whose credential was refused. Nil for any
// other answer, and for an HTML page, which something in front of the platform
// may have sent.
func parseOAuthError(resp *response, apiErr *APIError) *OAuthError {
	var body struct {
		Error       json.RawMessage `json:"error"`
		Description string          `json:"error_description"`
	}
	_ = json.Unmarshal(resp.body, &body)
	var code string
	if json.Unmarshal(body.Error, &code) == nil && code != "" {
		return &OAuthError{Status: resp.status, ErrorCode: code, Description: body.Description}
	}
	if resp.status != http.StatusBadRequest && resp.status != http.StatusUnauthorized || apiErr.HTML {
		return nil
	}
	return &OAuthError{Status: resp.status, ErrorCode: namedOAuthError(resp.body), Description: refusalText(resp.body, apiErr)}
}

// oauthErrorCodes are the error codes of RFC 6749 §5.2, the credential's first.
var oauthErrorCodes = []string{"invalid_client", "invalid_grant", "unauthorized_client", "invalid_request",
	"unsupported_grant_type", "invalid_scope"}

// namedOAuthError is the RFC 6749 error code a body in another form names (in a
// code, a problem type or title, or its text), or "".
func namedOAuthError(body []byte) string {
	text := strings.ToLower(string(body))
	for _, code := range oauthErrorCodes {
		if strings.Contains(text, code) || strings.Contains(text, strings.ReplaceAll(code, "_", "-")) {
			return code
		}
	}
	return ""
}

// refusalText is the message of a refusal in a form other than RFC 6749's: an RFC
// 9457 problem's detail or title, the message of {"error": {"message": …}} or of the
// platform's problem, or the text itself.
func refusalText(body []byte, apiErr *APIError) string {
	var doc struct {
		Detail string `json:"detail"`
		Title  string `json:"title"`
		Error  struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &doc) == nil {
		for _, s := range []string{doc.Detail, doc.Error.Message, doc.Message, doc.Title} {
			if s != "" {
				return s
			}
		}
		return ""
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	if text == "" {
		return apiErr.Message
	}
	return text
}

// tokenLinksFor returns the extend and removal hrefs of tok, reading its
// token information resource when they are not known yet.
func (c *Client) tokenLinksFor(ctx context.Context, tok *AccessToken) (*tokenLinks, error) {
	if tok.links != nil {
		return tok.links, nil
	}
	links, err := c.readTokenLinks(ctx, tok)
	if err != nil {
		return nil, err
	}
	c.keepTokenLinks(tok, links, false)
	return links, nil
}

// keepTokenLinks stores links on the token held when it is tok: when it has none, or
// in place of those it has when replace is set.
func (c *Client) keepTokenLinks(tok *AccessToken, links *tokenLinks, replace bool) {
	c.token.update(func(cur *AccessToken) (*AccessToken, bool) {
		if cur == nil || cur.Token != tok.Token || (cur.links != nil && !replace) {
			return cur, false
		}
		next := *cur
		next.links = links
		return &next, true
	})
}

// readTokenLinks reads tok's token information resource for its links.
func (c *Client) readTokenLinks(ctx context.Context, tok *AccessToken) (*tokenLinks, error) {
	var info tokenInfoDoc
	resp, err := c.discovered(ctx, http.MethodGet, "auth:token", func(ep *authEndpoints) string { return ep.tokenInfo },
		func(href string) (*response, error) {
			info = tokenInfoDoc{}
			return c.do(ctx, &request{method: http.MethodGet, url: href, auth: authBearer, cred: tok.Token}, &info)
		})
	if err != nil {
		return nil, fmt.Errorf("reading platform token information: %w", err)
	}
	return c.linksFromInfo(resp, &info)
}

func (c *Client) linksFromInfo(resp *response, info *tokenInfoDoc) (*tokenLinks, error) {
	// Each link is needed only by the call that follows it: a token information without
	// its extension link can still be removed, and the call that lacks its link says so
	// (viaTokenLinks). One without its removal link is removed where it is: a DELETE of
	// the token information's own address (its self link) removes the resource it names
	// (RFC 9110 §9.3.5), as the contract's removal link itself does (B5, B7).
	extend, ok1 := info.Links.First("auth-token:extend")
	removal, ok2 := info.Links.First("auth-token:removal")
	if !ok1 && !ok2 {
		return nil, fmt.Errorf("platform token information at %s lacks the auth-token:extend and auth-token:removal links", pathOf(resp.url))
	}
	if !ok2 {
		removal, ok2 = info.Links.First("self")
	}
	links := &tokenLinks{}
	var err error
	if ok1 {
		if links.extend, err = c.tokenFlowHref(resp.url, extend.Href); err != nil {
			return nil, err
		}
	}
	if ok2 {
		if links.removal, err = c.tokenFlowHref(resp.url, removal.Href); err != nil {
			return nil, err
		}
	}
	return links, nil
}

// tokenFlowHref resolves an href of the token flow against the document that
// held it and checks that it points at the platform (platform_url, registry_url, or
// a name of platform_hosts, see viaPlatformHosts): every request of the flow carries
// the basic credential, the user's password or the token, which must never go to a
// host the user did not name.
func (c *Client) tokenFlowHref(base *url.URL, href string) (string, error) {
	u, err := resolveHref(base, href)
	if err != nil {
		return "", err
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("invalid href %q: %w", redactURL(href), err)
	}
	if hostIn(parsed, []string{c.cfg.PlatformURL, c.cfg.RegistryURL}) {
		return u, nil
	}
	if at, ok := c.viaPlatformHosts(parsed); ok {
		return at.String(), nil
	}
	return "", &ForeignHostError{Href: redactURL(u), Platform: redactURL(c.cfg.PlatformURL), Host: parsed.Host}
}

// extend extends tok and returns it with its new expiry.
func (c *Client) extend(ctx context.Context, tok *AccessToken) (*AccessToken, error) {
	links, err := c.tokenLinksFor(ctx, tok)
	if err != nil {
		return nil, err
	}
	var start time.Time
	var info tokenInfoDoc
	resp, err := c.viaTokenLinks(ctx, tok, links, http.MethodPost, "auth-token:extend", func(l *tokenLinks) string { return l.extend },
		func(href string) (*response, error) {
			start, info = time.Now(), tokenInfoDoc{}
			return c.do(ctx, &request{
				method: http.MethodPost, url: href, auth: authBearer, cred: tok.Token,
				// Extending twice only sets the same new expiry.
				retrySafe: true,
			}, &info)
		})
	if err != nil {
		return nil, fmt.Errorf("extending platform token: %w", err)
	}
	next := *tok
	switch {
	case info.ExpiresIn != nil && *info.ExpiresIn > 0:
		next.lifetime = secondsOf(int64(*info.ExpiresIn))
		next.ExpiresAt = start.Add(next.lifetime)
	case !info.expiresAt().IsZero():
		// On the platform's clock: this machine's may be hours away.
		offset, _ := c.clock.offset(hostKey(resp.url))
		next.ExpiresAt = info.expiresAt().Add(-offset)
		if next.lifetime <= 0 {
			next.lifetime = next.ExpiresAt.Sub(start)
		}
	case next.lifetime > 0:
		next.ExpiresAt = start.Add(next.lifetime)
	}
	if l, err := c.linksFromInfo(resp, &info); err == nil {
		next.links = l
	}
	logDebug(ctx, "platform token extended", map[string]any{"expires_at": next.ExpiresAt.Format(time.RFC3339)})
	return &next, nil
}

// GrantAccessToken runs the password grant for a new access token of its own,
// independent of the token the client uses for its calls. The caller owns it
// and should remove it with RemoveAccessToken; one it has not removed when the
// client closes, Close removes (the ledger, token_ledger.go).
func (c *Client) GrantAccessToken(ctx context.Context) (*AccessToken, error) {
	c.granted.grantStarted()
	defer c.granted.grantDone()
	tok, err := c.grant(c.logContext(ctx))
	if err == nil && tok != nil {
		c.granted.recordHandedOut(tok)
	}
	return tok, err
}

// ExtendAccessToken extends tok (which may carry only its Token) and returns
// it with its new expiry. An expired token cannot be extended: the error then
// satisfies IsUnauthorized, and a new token must be granted.
func (c *Client) ExtendAccessToken(ctx context.Context, tok *AccessToken) (*AccessToken, error) {
	if tok == nil || tok.Token == "" {
		return nil, errors.New("extending platform token: no token given")
	}
	next, err := c.extend(c.logContext(ctx), tok)
	if err == nil {
		c.granted.extended(next)
	}
	return next, err
}

// RemoveAccessToken invalidates tok (which may carry only its Token). A token
// that is already invalid or expired counts as removed.
func (c *Client) RemoveAccessToken(ctx context.Context, tok *AccessToken) error {
	return c.removeToken(ctx, tok, false)
}

// removeToken removes tok; exiting, as one of the client's last requests (Close),
// outside the pace of its other calls (request.exit).
func (c *Client) removeToken(ctx context.Context, tok *AccessToken, exiting bool) error {
	if tok == nil || tok.Token == "" {
		return nil
	}
	ctx = c.logContext(ctx)
	links, err := c.tokenLinksFor(ctx, tok)
	switch {
	case IsUnauthorized(err):
		c.granted.forget(tok.Token)
		return nil // the token is already invalid
	case err != nil:
		return fmt.Errorf("removing platform token: %w", err)
	}
	_, err = c.viaTokenLinks(ctx, tok, links, http.MethodDelete, "auth-token:removal", func(l *tokenLinks) string { return l.removal },
		func(href string) (*response, error) {
			return c.do(ctx, &request{method: http.MethodDelete, url: href, auth: authBearer, cred: tok.Token,
				exit: exiting, textAnswer: exiting}, nil)
		})
	var moved *TokenServiceMovedError
	if errors.As(err, &moved) && moved.Again == "" && MeaningOf(CallDelete, moved.Status) == Gone {
		err = nil // the token's links still lead there: the token is gone
	}
	if err != nil && !IsUnauthorized(err) && !IsNotFound(err) {
		return fmt.Errorf("removing platform token: %w", err)
	}
	c.granted.forget(tok.Token)
	logDebug(ctx, "platform token removed", nil)
	return nil
}

// ForeignHostError is an href, found in a platform document, that points at a
// host other than the platform's: the client refuses to send a credential there.
type ForeignHostError struct {
	// Href is the refused address and Platform the platform's, both redacted.
	Href, Platform string
	// Host is the refused address's host[:port] as the document wrote it.
	Host string
}

// Error names both hosts and says that nothing was sent to the foreign one.
func (e *ForeignHostError) Error() string {
	return fmt.Sprintf("the platform's document links to %s, which is not on the platform (%s); refusing to send "+
		"credentials there", e.Href, e.Platform)
}
