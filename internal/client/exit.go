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
// (decideExit, in request_retry.go). Each release is named at WARN before it leaves and
// confirmed after (exitReported), so that a process killed in its exit still says
// which credential it may leave live.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// exitState is Close's: it runs once, and later calls return its result.
type exitState struct {
	once sync.Once
	err  error
}

// Close logs the administrator session out and removes the platform access
// token, if the client holds them, and every token it replaced whose removal has not
// been seen to succeed. It waits for a login in progress, is bounded by ctx and is
// idempotent: later calls return the first result, and every other call made after
// Close returns ErrClosed. Its error names every credential it leaves live, a grant
// still under way when ctx ended included.
func (c *Client) Close(ctx context.Context) error {
	c.exit.once.Do(func() {
		ctx = c.logContext(ctx)
		var wg sync.WaitGroup
		var adminErr, tokenErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			if session, ok := c.session.closeAndTake(ctx); ok {
				adminErr = c.exitReported(ctx, "administrator session", session, "logging out", "logged out", func() error {
					return c.exitLogout(ctx, session)
				})
			}
			if c.session.loading() {
				adminErr = errors.Join(adminErr, errLoginAtExit)
			}
		}()
		go func() {
			defer wg.Done()
			tok, ok := c.token.closeAndTake(ctx)
			tokenErr = c.exitTokens(ctx, tok, ok)
		}()
		wg.Wait()
		c.exit.err = errors.Join(adminErr, tokenErr)
	})
	return c.exit.err
}

// exitLogout logs the administrator session out when the client closes (request.exit).
// A session the server no longer knows (401, or its login page) counts as logged out.
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
	case err == nil, errors.As(err, &apiErr) && apiErr.Status == http.StatusUnauthorized,
		errors.As(err, &redirect) && redirect.LoginPage: // a form login's answer to a session it does not know
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

// errLoginAtExit and errGrantAtExit are an administrator login and a platform token
// grant still under way when the exit's window ended: the session or the token it
// brings is live, and nobody is left to remove it.
var errLoginAtExit = errors.New("administrator logout failed: a login was still under way when the exit's window " +
	"ended; the session it brings stays live until it expires")

var errHandOutAtExit = errors.New("removing platform token: a grant of a token to hand out (ephemeral " +
	"mediaplatform_access_token) was still under way when the exit's window ended; the token it brings stays live " +
	"until it expires")

var errGrantAtExit = errors.New("removing platform token: a token grant was still under way when the exit's window " +
	"ended; the token it brings stays live until it expires")

// exitTokens removes at exit the token the client holds (held, when has) and every
// other token it granted that is still valid and not seen removed (the ledger): one
// handed out whose holder did not remove it, or one its token cache brought: a
// token replaced while valid is removed in the background (renewToken), which may
// have failed or still be under way. A grant still under way is reported: its token
// cannot be removed any more. The error names each token left live.
func (c *Client) exitTokens(ctx context.Context, held *AccessToken, has bool) error {
	var tokens []*AccessToken
	if has {
		tokens = append(tokens, held) // the cache's own copy, with the links it learned since
	}
	for _, tok := range c.granted.all() {
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
			if err := c.exitReported(ctx, c.granted.kind(tok.Token), tok.Token, "removing", "removed", func() error {
				return c.removeToken(ctx, tok, true)
			}); err != nil {
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
	if c.granted.grantsUnderWay() {
		errs = append(errs, errHandOutAtExit)
	}
	return errors.Join(errs...)
}

// exitReported runs the exit's release of one credential (the removal of a platform
// token, the logout of an administrator session) between two WARN lines that name
// it by credentialName: the first before the request leaves, the second when its
// outcome is known. Terraform kills a provider about 2 s after it asks it to stop,
// and a process that is busy or starved of CPU may be killed anywhere in its exit:
// then the first line is in the log and the second is not, and the credential it
// names is the one that may be left live. A report written only after the exit
// (Close's error) is never written when the kill lands first.
func (c *Client) exitReported(ctx context.Context, kind, cred, doing, done string, release func() error) error {
	name := kind + " " + credentialName(cred)
	tflog.Warn(ctx, "Provider exiting: "+doing+" "+name+"; if the provider is stopped before it confirms, the "+
		kind[strings.LastIndexByte(kind, ' ')+1:]+" stays live until it expires", nil)
	err := release()
	if err != nil {
		tflog.Warn(ctx, "Provider exiting: "+name+" left live until it expires: "+doing+" failed", map[string]any{"error": err.Error()})
		return err
	}
	tflog.Warn(ctx, "Provider exiting: "+name+" "+done, nil)
	return nil
}

// credentialName names a credential in the log without showing it: "sha256:" and
// the first 8 hex digits of its SHA-256, which its holder can compute and the log's
// reader cannot reverse.
func credentialName(cred string) string {
	sum := sha256.Sum256([]byte(cred))
	return "sha256:" + hex.EncodeToString(sum[:4])
}
