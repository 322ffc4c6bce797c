package client

// The exit's requests: the logout and the token removal when the client closes.
//
// Terraform ends a provider with a graceful shutdown and kills it about 2 s later, so
// they have one short window, and on a platform whose rate limit other jobs keep full
// they meet 429s. Through the request pipeline they would first wait for the pace the
// client learned from its own 429s (which spaces a client's many calls and means nothing
// for its last two), and after a 429 for Retry-After plus a random spread of up to as
// much again: one refusal used up the window, and the token stayed live until it
// expired. exitCall sends them outside the pace, repeats a 429 or 503 exactly when
// Retry-After says (sooner would only be refused again; without one, after a second, as
// the pipeline assumes), a failed connection at once, and gives up only when the window
// cannot hold the next attempt.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// exitRetryWait is the wait before repeating an exit request whose connection failed.
const exitRetryWait = 50 * time.Millisecond

// exitCall sends one exit request with the credential header set, until the platform
// answers with something else than 429 or 503 or ctx's window cannot hold another
// attempt. It returns the status of the last answer.
func (c *Client) exitCall(ctx context.Context, method, address string, credential http.Header) (int, error) {
	u, err := url.Parse(address)
	if err != nil {
		return 0, fmt.Errorf("invalid address %q: %w", redactURL(address), err)
	}
	ctx, platform := c.forPlatform(ctx, u)
	start := time.Now()
	for attempts := 1; ; attempts++ {
		req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
		if err != nil {
			return 0, err
		}
		c.setBaseHeaders(req.Header, platform, "")
		for name, values := range credential {
			req.Header[name] = values
		}
		wait := exitRetryWait
		resp, err := c.http.HTTPClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswerBytes))
			resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
				return resp.StatusCode, nil
			}
			wait = unannouncedWait
			if asked, ok := retryAfter(resp.Header); ok {
				wait = asked
			}
			err = fmt.Errorf("%s %s: HTTP %d (%s)", method, pathOf(u), resp.StatusCode, exitAttempts(attempts, time.Since(start)))
			logDebug(ctx, "exit request refused, repeating it after the wait asked for", map[string]any{
				"method": method, "path": pathOf(u), "status": resp.StatusCode, "retry_after": resp.Header.Get("Retry-After"),
			})
		}
		if deadline, ok := ctx.Deadline(); (ok && time.Until(deadline) < wait) || ctx.Err() != nil {
			return 0, err
		}
		if sleepCtx(ctx, wait) != nil {
			return 0, err
		}
	}
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

// exitLogout logs the administrator session out when the client closes (exitCall). A
// session the server no longer knows (401) counts as logged out.
func (c *Client) exitLogout(ctx context.Context, session string) error {
	base, err := c.adminBase()
	if err != nil {
		return err
	}
	status, err := c.exitCall(maskCredential(ctx, session), http.MethodGet, base+"/logout", http.Header{"Token": {session}})
	switch {
	case err != nil:
		return fmt.Errorf("administrator logout failed: %w", err)
	case status/100 != 2 && status != http.StatusUnauthorized:
		return fmt.Errorf("administrator logout failed: GET %s answered HTTP %d", pathOf(mustParse(base+"/logout")), status)
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
