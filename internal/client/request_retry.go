package client

// Retries and the pace: which failures are tried again and after how long (backoff,
// Retry-After), the budget of a 429 or 503 wait, the exit's policy (request.exit), and
// the pace the client keeps after the platform said it was asked too often.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Waiting on a rate limit. A 429 answer (the platform asks the client to slow down
// and says for how long) is retried for as long as the call's retry time budget
// lasts, however many attempts that takes, since at high parallelism many attempts
// meet a full window; every other transient failure is retried max_retries times.
// A single wait is capped, and a Retry-After longer than the budget left fails the
// call at once instead of holding a CI job for an hour.
const (
	// maxRetryAfterWait caps one wait asked for with Retry-After.
	maxRetryAfterWait = 30 * time.Second
	// rateLimitBudget is the time one call may spend retrying 429 answers.
	rateLimitBudget = 2 * time.Minute
	// unannouncedWait is the wait taken for a 429 or 503 without Retry-After, which RFC
	// 6585 §4 makes optional: one second, the window of the common per-second limits.
	// After a 429 the gate then learns the pace from it as from a Retry-After; retried
	// sooner, a request meets the same full window again.
	unannouncedWait = time.Second
)

// unannouncedWaitAfter is the wait taken for a call's next 429 or 503 without
// Retry-After, once it has met n of them: a second, then twice as long each time, up to
// maxRetryAfterWait. A limit whose window is longer than a second (per minute, per ten
// seconds) would otherwise refuse the call once a second for the whole window; so its
// refusals grow as the logarithm of the window, not as the window.
func unannouncedWaitAfter(n int) time.Duration {
	return min(unannouncedWait<<min(n, 5), maxRetryAfterWait)
}

// RetryAfterError is a 429 or 503 answer whose Retry-After asks for a longer wait
// than the call's retry budget has left: the call fails at once.
type RetryAfterError struct {
	// Wait is what the platform asked for; Left is what the budget had left.
	Wait, Left time.Duration
	// Status is the answer's HTTP status.
	Status int
}

// Error names the wait and the budget.
func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("HTTP %d: the platform asked to retry after %s (Retry-After), longer than the %s left of this "+
		"request's retry budget; giving up instead of waiting", e.Status, e.Wait.Round(time.Second), e.Left.Round(time.Second))
}

// attempts is the state of one exchange's attempts, a local of exchange (request.go):
// what decide counts, and the times it judges its budgets by.
type attempts struct {
	repeatable bool      // request.repeatable: a failure after the request's effect may be tried again
	exit       bool      // request.exit
	n          int       // attempts begun, the current one included
	start      time.Time // when the first attempt began, on the client's clock
	sent       time.Time // when the latest attempt began, on the real clock (response.sent)
	// rateLimited counts the attempts answered 429: they spend the rate-limit
	// budget, not max_retries, so that a rate limit does not use up the retries
	// meant for other failures.
	rateLimited int
	// unannounced counts the 429 and 503 answers without Retry-After: each doubles
	// the wait the next one takes (unannouncedWaitAfter).
	unannounced int
	// refusal is, for an exit request, the refusal the coming wait follows: what the
	// call ends in when the exit's window ends during the wait.
	refusal error
}

// failures is the number of attempts so far that max_retries counts: every
// attempt but those answered 429.
func (a *attempts) failures() int { return a.n - a.rateLimited }

// decide is the retry policy: it says whether the attempt a just made, answered resp or
// failed with err, is tried again, and after what wait. 429 and 503 are always retried
// (the contract guarantees they come before any effect); connection errors, 502 and
// 504 only for calls that are safe to repeat, except a failed dial, which never reached
// the server. A 429 is retried within the call's rate-limit budget (time, however many
// attempts) and does not count against max_retries; everything else is retried
// max_retries times; a Retry-After longer than the budget left ends the call. The error
// is the one the exchange ends in if it ends here.
func (c *Client) decide(ctx context.Context, a *attempts, resp *http.Response, err error) (again bool, wait time.Duration, _ error) {
	if a.exit {
		return c.decideExit(ctx, a, resp, err)
	}
	withinCount := a.failures() <= c.cfg.MaxRetries
	if err != nil {
		if ctx.Err() != nil || !transient(err) {
			return false, 0, err
		}
		retry := (a.repeatable || isDialError(err)) && withinCount
		if isTimeout(err) && a.failures() >= 2 {
			// Nothing answered twice within request_timeout: more attempts would only make
			// a CI job wait max_retries × request_timeout for the same silence.
			retry = false
		}
		if !retry {
			return false, 0, err
		}
		logDebug(ctx, "retrying after a connection error", map[string]any{"error": err.Error(), "attempt": a.n})
		return true, c.backoffAfter(a, resp), err
	}
	retry := false
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		if c.cfg.MaxRetries == 0 {
			break
		}
		asked, hasRetryAfter := retryAfter(resp.Header)
		if !hasRetryAfter {
			asked = unannouncedWaitAfter(a.unannounced)
			a.unannounced++
		}
		elapsed := c.local.Now().Sub(a.start)
		if resp.StatusCode == http.StatusTooManyRequests {
			a.rateLimited++
		}
		budget := c.retryBudget(resp.StatusCode)
		// A wait longer than what is left fails at once, naming the wait; a budget
		// already spent ends in the status itself ("kept answering 429").
		if left := budget - elapsed; hasRetryAfter && left > 0 && asked > left &&
			(resp.StatusCode != http.StatusServiceUnavailable || withinCount) {
			return false, 0, &RetryAfterError{Wait: asked, Left: max(budget-elapsed, 0), Status: resp.StatusCode}
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			// Every request of this client waits with this one: at high parallelism a
			// rate limit is met by all of them at once.
			c.gate.pause(min(asked, maxRetryAfterWait))
			retry = elapsed+min(asked, maxRetryAfterWait) <= budget
		} else {
			retry = withinCount
		}
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		retry = a.repeatable && withinCount
	}
	if !retry {
		return false, 0, nil
	}
	logDebug(ctx, "retrying after a transient answer", map[string]any{
		"status": resp.StatusCode, "retry_after": resp.Header.Get("Retry-After"), "attempt": a.n,
	})
	return true, c.backoffAfter(a, resp), nil
}

// backoffAfter is the wait before the attempt after a's latest, answered resp (nil:
// none): what backoff says for it.
func (c *Client) backoffAfter(a *attempts, resp *http.Response) time.Duration {
	return backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, a.n-1, resp)
}

// waitBefore waits what decide said before the next attempt of a, on the client's
// clock, and ends the exchange when ctx ends first: in the refusal the wait followed,
// for an exit request, else in ctx's error.
func (c *Client) waitBefore(ctx context.Context, a *attempts, wait time.Duration) error {
	if wait <= 0 {
		return ctx.Err()
	}
	err := c.local.Sleep(ctx, wait)
	if err != nil && a.refusal != nil {
		return a.refusal // the exit's window ended: the refusal is what it met
	}
	return err
}

// exitRetryWait is the wait before repeating an exit request whose connection failed.
const exitRetryWait = 50 * time.Millisecond

// decideExit is decide for an exit request (request.exit): a 429 or 503 is repeated
// after the wait Retry-After asks for (unannouncedWait without one), a transient
// connection failure after exitRetryWait, as long as ctx's deadline can hold the wait.
// A 429 or 503 left unrepeated ends the call in an *exitRefusal.
func (c *Client) decideExit(ctx context.Context, a *attempts, resp *http.Response, err error) (again bool, wait time.Duration, _ error) {
	wait, refused := exitRetryWait, false
	switch {
	case err != nil && ctx.Err() != nil:
		// The window ended with the attempt under way: whether the platform acted on it
		// is unknown, which is what the call ends in, not ctx's "deadline exceeded".
		return false, 0, &exitCutOff{attempt: a.n, before: a.refusal, cause: ctx.Err()}
	case err != nil && !transient(err):
		return false, 0, err
	case err == nil && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable:
		return false, 0, nil
	case err == nil:
		wait = unannouncedWait
		if asked, ok := retryAfter(resp.Header); ok {
			wait = asked
		}
		err, refused = &exitRefusal{status: resp.StatusCode, attempts: a.n, over: c.local.Now().Sub(a.start)}, true
	}
	if deadline, ok := ctx.Deadline(); (ok && deadline.Sub(c.local.Now()) < wait) || ctx.Err() != nil {
		return false, 0, err
	}
	if refused {
		logDebug(ctx, "exit request refused, repeating it after the wait asked for", map[string]any{
			"status": resp.StatusCode, "retry_after": resp.Header.Get("Retry-After"), "attempt": a.n,
		})
		a.refusal = err
		return true, wait, nil
	}
	return true, wait, err
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

// exitCutOff is an exit request whose attempt was still under way when the exit's
// window ended: the platform may have released the credential or not, and nobody is
// left to ask it again.
type exitCutOff struct {
	attempt int
	before  error // the refusal the attempt before it met, if any
	cause   error // ctx's error
}

func (e *exitCutOff) Error() string {
	msg := fmt.Sprintf("attempt %d was still under way when the exit's window ended, and may or may not have taken effect", e.attempt)
	if e.before != nil {
		msg += fmt.Sprintf(" (attempt %d: %v)", e.attempt-1, e.before)
	}
	return msg
}

// Unwrap is ctx's error, for a caller that tells a cut-off call from a failed one.
func (e *exitCutOff) Unwrap() error { return e.cause }

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

// retryBudget is how long one call may spend retrying answers of this status: the
// rate-limit budget for 429, and for 503 the time max_retries waits of the
// longest kind take.
func (c *Client) retryBudget(status int) time.Duration {
	if status == http.StatusTooManyRequests {
		return rateLimitBudget
	}
	return time.Duration(c.cfg.MaxRetries) * maxRetryAfterWait
}

// transient reports whether a transport error may go away on its own.
func transient(err error) bool {
	var recordHeader tls.RecordHeaderError
	var refused *tunnelRefusedError
	switch {
	case errors.As(err, &refused):
		return false // the proxy's policy or its login: asking again changes neither
	case isCertificateError(err), tlsAlert(err) != "", errors.As(err, &recordHeader), errors.Is(err, errAnswerTooLarge):
		return false
	case isLocalLimit(err):
		return false // this machine's limit, not the network: the connections per host already wait below it
	case strings.Contains(err.Error(), "unsupported protocol scheme"),
		strings.Contains(err.Error(), "stopped after"): // too many redirects
		return false
	}
	return true
}

// backoff waits as the server asks with Retry-After on 429 and 503, and
// otherwise exponentially from min to max with jitter (half to full delay).
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := retryAfter(resp.Header); ok {
			return min(d, maxRetryAfterWait)
		}
	}
	d := maxWait
	if attempt < 30 {
		if e := minWait << attempt; e > 0 && e < maxWait {
			d = e
		}
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter is the wait an answer asks for with Retry-After. A date is on the
// clock of whoever answered, which may be hours away from this machine's: it is
// judged against the Date header of the same answer (RFC 9110 §10.2.3 makes the two
// one clock's), and only an answer without a Date is judged on this machine's clock.
func retryAfter(h http.Header) (time.Duration, bool) {
	now := time.Now()
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		now = date
	}
	return parseRetryAfter(h.Get("Retry-After"), now)
}

// secondsOf is n seconds (n ≥ 0) as a duration, or the longest duration when n
// seconds are longer: multiplying would overflow into a negative or a short one.
func secondsOf(n int64) time.Duration {
	if n > math.MaxInt64/int64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(n) * time.Second
}

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP date, a date
// being judged against now.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return secondsOf(s), true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

// rateGate holds back every request of a client after a 429, until the wait the
// platform asked for has passed; the requests then resume spread over one such wait
// instead of all at once. From the first 429 that asks for a wait on, it also paces the
// attempts at a rate learned from the platform: the attempts it let through in the second before the 429,
// less a fifth; each later 429 (at most one a second) takes a fifth off, each second
// without one adds one attempt a second. At high parallelism a rate limit is then met
// by attempts spaced below it, instead of bursts that are refused and paused. The pace
// ends paceMemory after the last 429.
type rateGate struct {
	onClock // the client's one clock, set by New
	mu      sync.Mutex
	until   time.Time
	spread  time.Duration

	recent    []time.Time // attempts let through in the last second
	rate      float64     // attempts a second while pacing (0: not pacing)
	next      time.Time   // the next attempt's slot while pacing
	last429   time.Time   // the latest 429 that changed the rate
	lastRaise time.Time   // when the rate last grew
}

// paceMemory is how long the gate paces attempts after the last 429.
const paceMemory = 30 * time.Second

// pause holds requests back for d from now (or longer, if already paused longer), and
// learns the rate the platform allows.
func (g *rateGate) pause(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if until := now.Add(d); until.After(g.until) {
		g.until = until
	}
	g.spread = max(d, 100*time.Millisecond)
	switch {
	case d <= 0:
		return // no wait asked for: no rate to learn
	case g.rate == 0:
		g.prune(now)
		g.rate = max(1, 0.8*float64(len(g.recent)))
	case now.Sub(g.last429) >= time.Second:
		g.rate = max(1, 0.8*g.rate)
	default:
		return // the same burst
	}
	g.last429, g.lastRaise = now, now
}

// prune drops the attempts older than a second. Called with g.mu held.
func (g *rateGate) prune(now time.Time) {
	i := 0
	for i < len(g.recent) && now.Sub(g.recent[i]) > time.Second {
		i++
	}
	g.recent = g.recent[i:]
}

// wait blocks while the gate is paused (then for a random part of the spread), and
// while pacing until the attempt's slot.
func (g *rateGate) wait(ctx context.Context) {
	g.mu.Lock()
	now := g.now()
	left := g.until.Sub(now)
	spread := g.spread
	var slot time.Time
	if g.rate > 0 && now.Sub(g.last429) > paceMemory {
		g.rate = 0 // the limit was not met for a while: stop pacing
	}
	if g.rate > 0 {
		for now.Sub(g.lastRaise) >= time.Second {
			g.rate++
			g.lastRaise = g.lastRaise.Add(time.Second)
		}
		slot = now.Add(max(left, 0))
		if g.next.After(slot) {
			slot = g.next
		}
		g.next = slot.Add(time.Duration(float64(time.Second) / g.rate))
	} else {
		g.prune(now)
		g.recent = append(g.recent, now)
	}
	g.mu.Unlock()
	switch {
	case !slot.IsZero():
		_ = g.sleep(ctx, slot.Sub(g.now()))
	case left > 0:
		_ = g.sleep(ctx, left+rand.N(spread))
	}
}
