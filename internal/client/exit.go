package client

// The exit's requests: the logout and the token removal when the client closes.
//
// Terraform ends a provider with a graceful shutdown and kills it about 2 s later, so
// they have one short window, and on a platform whose rate limit other jobs keep full
// they meet 429s. Paced like the client's other calls they would first wait for the
// pace the client learned from its own 429s (which spaces a client's many calls and
// means nothing for its last two), and after a 429 for Retry-After plus a random spread
// of up to as much again: one refusal used up the window, and the token stayed live
// until it expired. So they go through the pipeline marked request.exit: outside the
// pace, a 429 or 503 repeated exactly when Retry-After says (sooner would only be
// refused again; without one, after a second, as the pipeline assumes), a failed
// connection at once, giving up only when the window cannot hold the next attempt
// (checkExitRetry).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// exitRetryWait is the wait before repeating an exit request whose connection failed.
const exitRetryWait = 50 * time.Millisecond

// checkExitRetry is checkRetry for an exit request (request.exit): a 429 or 503 is
// repeated after the wait Retry-After asks for (unannouncedWait without one), a
// transient connection failure after exitRetryWait, as long as ctx's deadline can hold
// the wait. A 429 or 503 left unrepeated ends the call in an *exitRefusal.
func (c *Client) checkExitRetry(ctx context.Context, info *attemptInfo, resp *http.Response, err error) (bool, error) {
	wait, refused := exitRetryWait, false
	switch {
	case err != nil && !transient(err):
		return false, err
	case err == nil && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable:
		return false, nil
	case err == nil:
		wait = unannouncedWait
		if asked, ok := retryAfter(resp.Header); ok {
			wait = asked
		}
		err, refused = &exitRefusal{status: resp.StatusCode, attempts: info.attempt, over: c.local.Now().Sub(info.start)}, true
	}
	if deadline, ok := ctx.Deadline(); (ok && deadline.Sub(c.local.Now()) < wait) || ctx.Err() != nil {
		return false, err
	}
	info.wait = wait
	if refused {
		logDebug(ctx, "exit request refused, repeating it after the wait asked for", map[string]any{
			"status": resp.StatusCode, "retry_after": resp.Header.Get("Retry-After"), "attempt": info.attempt,
		})
		info.refusal = err
		return true, nil
	}
	return true, err
}

// exitRefusal is an exit request that the platform refused with 429 or 503 at every
// attempt the exit's window held.
type exitRefusal struct {
	status   int
	attempts int
	over     time.Duration
}

func (e *exitRefusal) Error() string {
	return fmt.Sprintf("HTTP %d (%s)", e.status, exitAttempts(e.attempts, e.over))
}

// exitAttempts says how many times an exit request was sent and over how long, for the
// error of one the platform refused each time: on a rate limit that other jobs keep
// full, the first and the repeat Retry-After asks for are all Terraform's exit window
// holds.
func exitAttempts(n int, over time.Duration) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts over %s", n, over.Round(100*time.Millisecond))
}

// exitLogout logs the administrator session out when the client closes (request.exit).
// A session the server no longer knows (401) counts as logged out.
func (c *Client) exitLogout(ctx context.Context, session string) error {
	base, err := c.adminBase()
	if err != nil {
		return err
	}
	_, err = c.do(ctx, &request{method: http.MethodGet, url: base + "/logout", auth: authSession, cred: session,
		exit: true, textAnswer: true}, nil)
	var apiErr *APIError
	var redirect *RedirectError
	switch {
	case err == nil, errors.As(err, &apiErr) && apiErr.Status == http.StatusUnauthorized:
	case errors.As(err, &apiErr):
		return fmt.Errorf("administrator logout failed: GET %s answered HTTP %d", pathOf(mustParse(base+"/logout")), apiErr.Status)
	case errors.As(err, &redirect):
		return fmt.Errorf("administrator logout failed: GET %s answered HTTP %d", pathOf(mustParse(base+"/logout")), redirect.Status)
	default:
		return fmt.Errorf("administrator logout failed: %w", err)
	}
	logDebug(ctx, "administrator session logged out", nil)
	return nil
}

// mustParse parses an address already checked by New.
func mustParse(address string) *url.URL {
	u, err := url.Parse(address)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// errLoginAtExit and errGrantAtExit are an administrator login and a platform token
// grant still under way when the exit's window ended: the session or the token it
// brings is live, and nobody is left to remove it.
var errLoginAtExit = errors.New("administrator logout failed: a login was still under way when the exit's window " +
	"ended; the session it brings stays live until it expires")

var errGrantAtExit = errors.New("removing platform token: a token grant was still under way when the exit's window " +
	"ended; the token it brings stays live until it expires")

// exitTokens removes at exit the token the client holds (held, when has) and every
// other token its token cache brought that is still valid and not seen removed: a
// token replaced while valid is removed in the background (renewToken), which may
// have failed or still be under way. A grant still under way is reported: its token
// cannot be removed any more. The error names each token left live.
func (c *Client) exitTokens(ctx context.Context, held *AccessToken, has bool) error {
	var tokens []*AccessToken
	if has {
		tokens = append(tokens, held) // the cache's own copy, with the links it learned since
	}
	for _, tok := range c.grantedTokens() {
		if !has || tok.Token != held.Token {
			tokens = append(tokens, tok)
		}
	}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, tok := range tokens {
		if !tok.ExpiresAt.IsZero() && time.Now().After(tok.ExpiresAt) {
			continue // expired on its own
		}
		wg.Go(func() {
			if err := c.removeToken(ctx, tok, true); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if c.token.loading() {
		errs = append(errs, errGrantAtExit)
	}
	return errors.Join(errs...)
}

// loadToken is the token cache's load (renewToken); it records the token it brings,
// for Close.
func (c *Client) loadToken(ctx context.Context, held *AccessToken, has bool) (*AccessToken, error) {
	tok, err := c.renewToken(ctx, held, has)
	if err == nil && tok != nil {
		c.grantedMu.Lock()
		if c.granted == nil {
			c.granted = map[string]*AccessToken{}
		}
		c.granted[tok.Token] = tok
		c.grantedMu.Unlock()
	}
	return tok, err
}

// forgetGranted drops token from the tokens Close removes: it was removed, or the
// platform no longer takes it.
func (c *Client) forgetGranted(token string) {
	c.grantedMu.Lock()
	defer c.grantedMu.Unlock()
	delete(c.granted, token)
}

// grantedTokens returns the tokens the token cache brought that are not seen removed.
func (c *Client) grantedTokens() []*AccessToken {
	c.grantedMu.Lock()
	defer c.grantedMu.Unlock()
	tokens := make([]*AccessToken, 0, len(c.granted))
	for _, tok := range c.granted {
		tokens = append(tokens, tok)
	}
	return tokens
}
