package client

// The shared platform access token: when the token cache serves the token it holds
// (tokenPolicy), how it renews it (renewToken, recorded by loadToken in the ledger),
// and the token as the pipeline's credential (tokenCredential).

import (
	"context"
	"net/http"
	"time"
)

// tokenCredential is the shared platform access token of the token cache, as the
// pipeline uses it (credential).
type tokenCredential struct{ c *Client }

func (t tokenCredential) get(ctx context.Context) (string, error) {
	tok, err := t.c.token.get(ctx, t.c.loadToken)
	if err != nil {
		return "", err
	}
	return tok.Token, nil
}

func (tokenCredential) set(h http.Header, token string) { h.Set("Authorization", "Bearer "+token) }

func (tokenCredential) loadName() string { return "platform token grant" }

// drop forgets token unless another call replaced it already; the platform no longer
// takes it, so there is nothing to remove at exit either.
func (t tokenCredential) drop(token string) bool {
	t.c.token.resetIf(func(tok *AccessToken) bool { return tok.Token == token })
	t.c.granted.forget(token)
	return true
}

// forbidden reports whether the platform no longer takes token. Otherwise something
// refused the request, not the token: a CDN refusing the request's form (CloudFront
// answers a GET with a body 403), a WAF, a missing right; dropping a valid token would
// leave it live and grant another (rule "no credential the provider replaces is left
// live").
func (t tokenCredential) forbidden(ctx context.Context, token string) bool {
	return !t.c.tokenStillValid(ctx, token)
}

// tokenStillValid reports whether the platform still takes the token cred: its
// token information answers 2xx. Any other answer, or none, says that it may not.
func (c *Client) tokenStillValid(ctx context.Context, cred string) bool {
	_, err := c.discovered(ctx, http.MethodGet, "auth:token", func(ep *authEndpoints) string { return ep.tokenInfo },
		func(href string) (*response, error) {
			return c.do(ctx, &request{method: http.MethodGet, url: href, auth: authBearer, cred: cred}, nil)
		})
	return err == nil
}

// tokenPolicy serves the platform token while more than a third of its lifetime is
// left, or while it is still valid and another call is renewing it; a token without
// a known lifetime is always served.
func tokenPolicy(tok *AccessToken, loading bool) bool {
	remaining := time.Until(tok.ExpiresAt)
	return tok.lifetime <= 0 || remaining > tok.lifetime/3 || (loading && remaining > 0)
}

// renewToken is the token cache's load: it extends the token held while it is still
// valid, and grants a new one otherwise or when the extension fails.
func (c *Client) renewToken(ctx context.Context, held *AccessToken, has bool) (*AccessToken, error) {
	var tok *AccessToken
	var err error
	if has && time.Until(held.ExpiresAt) > 0 {
		if tok, err = c.extend(ctx, held); err != nil {
			logDebug(ctx, "platform token extension failed, granting a new token", map[string]any{"error": err.Error()})
			tok = nil
		}
	}
	if tok == nil && ctx.Err() == nil {
		tok, err = c.grant(ctx)
		if err == nil && has && time.Until(held.ExpiresAt) > 0 {
			// The held token is still valid but replaced: remove it now instead of leaving
			// it live, held by nobody, until it expires. In the background, bounded by one
			// request's time: the calls waiting for the new token need not wait for it.
			go func() {
				removeCtx, cancel := context.WithTimeout(c.detached(ctx), c.cfg.RequestTimeout)
				defer cancel()
				if rerr := c.removeToken(removeCtx, held, false); rerr != nil {
					logDebug(removeCtx, "removing the replaced platform token failed; it expires on its own", map[string]any{"error": rerr.Error()})
				}
			}()
		}
	}
	if tok == nil && err == nil {
		err = ctx.Err()
	}
	return tok, err
}
