package client

// The request pipeline, the one path of every request of the client: do runs one API
// call, send one logical exchange of it (see do for what they manage). A call that
// needs other treatment says so with a field of request (retrySafe, textAnswer, exit).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// maxAnswerBytes bounds every answer the client reads. The largest answers of the
// API are the data models, well under 1 MiB; 8 MiB leaves a generous margin while ten
// concurrent answers stay far below the memory a Terraform run can spare.
const maxAnswerBytes = 8 << 20

// errAnswerTooLarge is the error for an answer over maxAnswerBytes.
var errAnswerTooLarge = fmt.Errorf("answer larger than %d MiB: the platform (or something in between) sent far more "+
	"than the API ever does, so the provider stopped reading", maxAnswerBytes>>20)

// request describes one API call for Client.do.
type request struct {
	method string
	url    string // absolute, without query
	query  url.Values
	body   any        // sent as JSON when non-nil
	form   url.Values // sent as a form when non-nil
	auth   authMode
	cred   string // credential for authBearer and authSession
	basic  string // value after "Basic " of the Authorization header
	accept string // Accept header; default acceptJSON
	// retrySafe marks a non-idempotent call whose repetition is harmless, so
	// that connection errors, 502 and 504 are retried as for a GET.
	retrySafe bool
	// textAnswer marks a call whose 2xx answer may be plain text (the bare token
	// of a login): such a body is the platform's answer, left to the caller.
	textAnswer bool
	// outcomeDetail completes an *UnknownOutcomeError for this call.
	outcomeDetail string
	// wrapper is the member that holds the answer's value ("score" of {"score": …});
	// a platform may also send the value bare (see unwrap).
	wrapper string
	// exit marks the exit's requests, the logout and token removals of Close (exit.go):
	// the rate gate does not pace them, a 429 or 503 is repeated exactly when
	// Retry-After says (unannouncedWait without one) and a failed connection after
	// exitRetryWait, whatever max_retries says, until the context's deadline cannot hold
	// the next wait (decideExit); and their answer must be the platform's whatever its
	// status. Set textAnswer with it: a platform may answer a logout in words.
	exit bool
}

// response is a complete HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
	url    *url.URL // address of the request, for resolving relative hrefs
	route  route    // where the request went
	// sent and received bound the exchange of the last attempt on this machine's
	// clock, for reading the platform's clock from its Date header.
	sent, received time.Time
}

// CredentialWaitError is a call whose context ended while it waited for its
// credential: the load (Credential: the platform token grant, with the token flow's
// discovery before it, or the administrator login) was still under way, and the
// call's own request had not been carried out. The load goes on without the call
// (cache.get): a token or session it brings is the client's, removed by Close when
// it arrives in time.
type CredentialWaitError struct {
	Credential string // "platform token grant" or "administrator login"
	Err        error  // the context's error
}

func (e *CredentialWaitError) Error() string {
	return "stopped waiting for the " + e.Credential + ", still under way; the request was not sent: " + e.Err.Error()
}

func (e *CredentialWaitError) Unwrap() error { return e.Err }

// do runs r, the hub of every request. With send it manages, one line each:
//   - the credential, through the seam (request_credential.go), and one fresh login on a refused one;
//     a call cut while its login or grant is on the wire: CredentialWaitError, the request unsent;
//   - the route: host, setting, proxy, the platform's hosts (request_route.go, request_hosts.go);
//   - the base headers, the credential header and the body;
//   - the attempts and their waits, by the retry policy (request_retry.go), per call (request.exit);
//   - the bounded read of the answer;
//   - what the answer says: redirect, *APIError, the platform's or not (request_answers.go);
//   - a redirect: followed on its origin for a request without credentials, at most
//     maxRedirects times; for a credentialed one to a login page, an expired credential;
//   - what the network said (request_failure.go), and an unknown outcome;
//   - the platform's clock, from the Date of an answer (clock.go).
//
// The shared session or token is dropped and loaded once more when rejected: with 401,
// with a redirect on its origin to a login page (any such redirect of an administrator
// call), or with 403 when the credential is one loaded before this call, which may have
// expired since (the specification shows neither status; a platform may answer an
// expired session with 403, and only a 403 to a fresh credential says that the account
// lacks a right). A 2xx body is decoded into out (when non-nil), out of its wrapper
// when r.wrapper names one; any other status becomes an *APIError.
func (c *Client) do(ctx context.Context, r *request, out any) (*response, error) {
	ctx = c.logContext(ctx)
	cr := c.credentialFor(r)
	followed := 0 // same-origin redirects followed (a request without credentials only)
	for attempt := 1; ; attempt++ {
		loadsBefore := c.credLoads.count()
		var cred string
		if cr != nil {
			v, err := cr.get(ctx)
			if ctxErr := ctx.Err(); err != nil && ctxErr != nil && errors.Is(err, ctxErr) {
				// Cut while the login or grant was on the wire: this request never left.
				return nil, &CredentialWaitError{Credential: cr.loadName(), Err: err}
			}
			if err != nil {
				return nil, err
			}
			cred = v
		}

		held := c.credLoads.count() == loadsBefore // the credential was there before this call
		resp, err := c.send(maskCredential(ctx, cred), r, cr, cred)
		if err != nil {
			return nil, err
		}
		if r.exit {
			// A page from anything in between (a gateway's, a captive portal's) proves no
			// logout or removal, whatever its status.
			if err := c.platformAnswer(r, resp); err != nil {
				return resp, err
			}
		}
		// A 403 to a credential loaded during this call says that the account lacks a
		// right; to one held before, it may say the credential expired, unless something
		// else refused the request (forbidden).
		refused := resp.status == http.StatusUnauthorized ||
			(resp.status == http.StatusForbidden && held && attempt == 1 && cr != nil && cr.forbidden(ctx, cred))
		if refused && attempt == 1 && cr != nil && cr.drop(cred) {
			// The credential expired or was invalidated: dropped (unless another goroutine
			// already replaced it); log in again once and retry.
			logDebug(ctx, "credential rejected, logging in again", map[string]any{
				"method": r.method, "path": pathOf(resp.url), "status": resp.status,
			})
			continue
		}
		target, redirected := redirectTarget(resp)
		if redirected && cr != nil && attempt == 1 && sessionRedirect(r, resp, target) && cr.drop(cred) {
			// A credentialed call sent on the same host to a login page (any redirect of
			// an administrator call): the session expired, as a 401 would say (Spring
			// Security's form login, Django's login_required). Log in again once and retry.
			logDebug(ctx, "credential redirected to a login page, logging in again", map[string]any{
				"method": r.method, "path": pathOf(resp.url), "status": resp.status, "target": redactURL(target.String()),
			})
			continue
		}
		if redirected && !r.carriesCredential() && followed < maxRedirects && followable(r, resp, target) {
			// A request without credentials, sent on to the same scheme, host and port
			// (nginx's 301 from /auth to /auth/, a servlet container's context root):
			// followed, as a browser would, a bounded number of times. The answer's
			// address is the target's, against which its relative links resolve.
			next, to := *r, *target
			next.query, to.User, to.RawQuery, to.ForceQuery, to.Fragment, to.RawFragment = nil, nil, "", false, "", ""
			if target.RawQuery != "" {
				next.query = target.Query()
			}
			next.url = to.String()
			r, followed = &next, followed+1
			logDebug(ctx, "following a redirect of a request without credentials", map[string]any{
				"method": r.method, "path": pathOf(resp.url), "status": resp.status, "target": redactURL(target.String()),
			})
			attempt--
			continue
		}
		if seeOtherAfterWrite(r, resp) {
			// 303 See Other to a write, on the same host: the write was carried out
			// (RFC 9110 §15.4.4, contract §0). It carries no value; the caller reads
			// what else it needs with a request of its own, and the Location is not
			// followed.
			c.clock.observe(hostKey(resp.url), resp.header.Get("Date"), resp.sent, resp.received)
			return resp, nil
		}
		if resp.status >= 300 && resp.status <= 399 {
			// Servers never redirect an API call (contract §0), and following one would
			// send the credential to wherever it points.
			return resp, newRedirectError(r, resp, target, cr != nil, followed)
		}
		if resp.status < 200 || resp.status > 299 {
			apiErr := parseAPIError(r.method, resp)
			apiErr.Host, apiErr.Setting = resp.url.Host, resp.route.setting
			apiErr.Proxy, apiErr.ProxyVar = resp.route.proxy, resp.route.proxyVar
			apiErr.Tunnelled = apiErr.Proxy != "" && resp.url.Scheme == "https"
			apiErr.ProxyLogin = apiErr.ProxyVar != "" && proxyLogin(apiErr.ProxyVar)
			apiErr.HeadersSet = len(c.cfg.RequestHeaders) > 0 && resp.route.platform
			c.maskAPIError(apiErr)
			logDebug(ctx, "API error", map[string]any{
				"method": r.method, "path": apiErr.Path, "status": apiErr.Status, "code": apiErr.Code,
			})
			if !r.repeatable() && (resp.status == http.StatusBadGateway || resp.status == http.StatusGatewayTimeout) {
				// A gateway that gave up may have forwarded the request already.
				return resp, r.unknownOutcome(apiErr.Path, apiErr)
			}
			return resp, apiErr
		}
		// A 2xx proves nothing unless the platform sent it (contract §V): a WAF, a
		// captive portal or a catch-all web front end answers 200 with a page of its own.
		err = c.platformAnswer(r, resp)
		if err == nil && out != nil && len(bytes.TrimSpace(resp.body)) > 0 && !r.textAnswer {
			var typeErr *json.UnmarshalTypeError
			switch uerr := decodeAnswer(resp.body, r.wrapper, out); {
			case errors.As(uerr, &typeErr) && typeErr.Field != "":
				// The platform's JSON with a member of another type than the client reads
				// (decoded as far as it goes, the member left zero): the answer is the
				// platform's, and proves a write; a member the caller needs and lacks
				// is the caller's to read back or report (rule "a write is recorded from
				// what proves it").
				c.warnFallback(ctx, "unreadable-member", "a member of the platform's answer holds another type than "+
					"the provider reads; it is taken as absent", map[string]any{"method": r.method, "path": pathOf(resp.url), "member": typeErr.Field})
			case uerr != nil:
				err = &UnreadableAnswerError{Method: r.method, Path: pathOf(resp.url), Status: resp.status, Reason: jsonProblem(uerr)}
			}
		}
		if err != nil {
			if !r.repeatable() {
				// The platform may have acted, but no answer of its says how: as good as
				// no answer for a call that is not safe to repeat.
				return resp, r.unknownOutcome(pathOf(resp.url), err)
			}
			return resp, err
		}
		c.clock.observe(hostKey(resp.url), resp.header.Get("Date"), resp.sent, resp.received)
		return resp, nil
	}
}

// seeOtherAfterWrite reports whether resp is a 303 See Other answering the write r
// with a Location on the host r went to.
func seeOtherAfterWrite(r *request, resp *response) bool {
	switch {
	case resp.status != http.StatusSeeOther,
		r.method != http.MethodPost && r.method != http.MethodPut && r.method != http.MethodDelete && r.method != http.MethodPatch:
		return false
	}
	loc, err := resp.url.Parse(resp.header.Get("Location"))
	return err == nil && resp.header.Get("Location") != "" && hostIn(loc, []string{resp.url.String()})
}

// send performs one logical exchange of r with the credential cred of cr (nil: none):
// it builds the request once, runs its attempts (exchange) and reads the outcome of the
// last one as a response or as the error that says what the network did.
func (c *Client) send(ctx context.Context, r *request, cr credential, cred string) (*response, error) {
	u, err := url.Parse(r.url)
	if err != nil {
		return nil, fmt.Errorf("invalid address %q: %w", r.url, err)
	}
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	path := pathOf(u)

	var body []byte
	header := make(http.Header)
	rt := c.routeOf(u)
	c.setBaseHeaders(header, rt.platform, r.accept)
	switch {
	case r.body != nil:
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encoding request: %w", r.method, path, err)
		}
		body = b
		header.Set("Content-Type", "application/json")
	case r.form != nil:
		body = []byte(r.form.Encode())
		header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	switch {
	case r.basic != "":
		header.Set("Authorization", "Basic "+r.basic)
	case cr != nil:
		cr.set(header, cred)
	}

	ctx = rt.context(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := attempts{repeatable: r.repeatable(), exit: r.exit, start: c.local.Now()}
	resp, err := c.exchange(ctx, r.method, u, header, body, &a)
	if err != nil {
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err // its message repeats the whole address
		}
		var retryAfter *RetryAfterError
		var refused *exitRefusal
		if errors.As(err, &retryAfter) || errors.As(err, &refused) || errors.Is(err, errAnswerTooLarge) {
			// A 429/503 comes before any effect; an oversized answer came after it, but
			// repeating the call would only bring the same answer.
			return nil, fmt.Errorf("%s %s: %w", r.method, path, err)
		}
		if isCertificateError(err) || isPlainHTTP(err) || tlsAlert(err) != "" {
			// The handshake failed, so nothing was sent: the outcome is known.
			return nil, c.networkError(r.method, rt, err, a.n)
		}
		var netErr error = c.networkError(r.method, rt, err, a.n)
		if ctx.Err() != nil {
			// The caller stopped waiting (a Terraform timeout or interrupt): not the network.
			netErr = fmt.Errorf("%s %s: %w", r.method, path, err)
		}
		if !a.repeatable && !isDialError(err) {
			return nil, r.unknownOutcome(path, netErr)
		}
		return nil, netErr
	}
	resp.url, resp.route, resp.sent, resp.received = u, rt, a.sent, time.Now()
	return resp, nil
}

// exchange sends a request until one attempt is final, and returns that attempt's
// answer (status, header and body), or the error that ended the exchange. One attempt, in the
// order it happens:
//
//  1. gate: wait while the client is held back after a 429 (rateGate; not for the
//     exit's requests, request.exit, which Terraform's exit window would not wait for);
//  2. attempt: send it once (the transport may send it once more on a new connection
//     when a kept-alive one turned out closed: staleConnTransport, request_transport.go);
//  3. decide on what came back, a status or a connection error: final, or another
//     attempt after a wait (decide, request_retry.go: the backoff, Retry-After, the budgets);
//  4. read a final answer, bounded (maxAnswerBytes); a read cut short is decided on as
//     the connection error it is, so a safe call is tried again;
//  5. wait what the decision said, on the client's one clock (localclock.go), and go
//     back to 1. An answer that is not final is drained unread first, so that its
//     connection is used again.
//
// The status is decided on before the body is read: a 429 or 503 is tried again
// whatever its body, so a body cut short never turns their repeat into an unknown
// outcome. After maxAttempts attempts the last answer is final whatever the decision
// said. An exchange that fails closes the idle connections, which a failure may have
// left broken.
func (c *Client) exchange(ctx context.Context, method string, u *url.URL, header http.Header, body []byte, a *attempts) (*response, error) {
	fail := func(err error) (*response, error) {
		c.http.CloseIdleConnections()
		return nil, err
	}
	for {
		a.n++
		if !a.exit {
			c.gate.wait(ctx) // 1. gate
		}
		a.sent = time.Now()
		req, err := http.NewRequestWithContext(withAttempt(ctx, a), method, u.String(), bytes.NewReader(body))
		if err != nil {
			return fail(err)
		}
		req.Header = header.Clone()
		resp, sendErr := c.http.Do(req)                     // 2. attempt
		again, wait, err := c.decide(ctx, a, resp, sendErr) // 3. decide
		if again && a.n > maxAttempts {
			again = false // a runaway loop: the last answer is final
		}
		switch {
		case !again && sendErr != nil:
			return fail(err)
		case !again:
			answer, readErr := readAnswer(resp.Body) // 4. read
			resp.Body.Close()
			if readErr == nil && err == nil {
				return &response{status: resp.StatusCode, header: resp.Header, body: answer}, nil
			}
			if readErr != nil {
				again, wait, err = c.decide(ctx, a, resp, readErr)
			}
			if !again {
				return fail(err)
			}
		case sendErr == nil:
			drainAnswer(resp.Body) // tried again: its connection serves the next attempt
		}
		if err := c.waitBefore(ctx, a, wait); err != nil { // 5. wait
			return fail(err)
		}
	}
}

// drainAnswer reads what is left of an answer not used, up to a bound, and closes it,
// so that its connection can carry the next attempt.
func drainAnswer(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4096))
	body.Close()
}

// repeatable reports whether sending r twice is harmless: its method is idempotent,
// or the call is marked retrySafe. It is the one place that decides whether a
// request is retried after a failure that may have come after its effect, and
// whether such a failure leaves its outcome unknown.
func (r *request) repeatable() bool {
	return r.retrySafe || idempotent(r.method)
}

// unknownOutcome is the error of a call r that is not safe to repeat and whose
// effect nobody can tell: err (at path) came after the request may have acted.
func (r *request) unknownOutcome(path string, err error) *UnknownOutcomeError {
	return &UnknownOutcomeError{Method: r.method, Path: path, Detail: r.outcomeDetail, Err: err}
}

// idempotent reports whether repeating a request with method m is harmless.
func idempotent(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// readAnswer reads a whole answer body, failing with errAnswerTooLarge past
// maxAnswerBytes without reading further.
func readAnswer(body io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(body, maxAnswerBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxAnswerBytes {
		return nil, errAnswerTooLarge
	}
	return b, nil
}

// UnknownOutcomeError reports a request that may have taken effect although no
// clean answer arrived (a timeout, a dropped or reset connection after the
// request was sent). It is returned instead of retrying a call that is not
// safe to repeat.
type UnknownOutcomeError struct {
	// Method and Path identify the request.
	Method string
	Path   string
	// Detail says what may have happened, e.g. "the score may have been created".
	Detail string
	// Err is the transport error.
	Err error
}

// Error says that the outcome is unknown and what may have happened.
func (e *UnknownOutcomeError) Error() string {
	detail := e.Detail
	if detail == "" {
		detail = "the request may have taken effect"
	}
	return fmt.Sprintf("%s %s: no usable answer, outcome unknown (%s): %v", e.Method, e.Path, detail, e.Err)
}

// Unwrap returns the transport error.
func (e *UnknownOutcomeError) Unwrap() error { return e.Err }
