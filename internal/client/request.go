package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// maxAnswerBytes bounds every answer the client reads. The largest answers of the
// API are the data models, well under 1 MiB; 8 MiB leaves a generous margin while ten
// concurrent answers stay far below the memory a Terraform run can spare.
const maxAnswerBytes = 8 << 20

// errAnswerTooLarge is the error for an answer over maxAnswerBytes.
var errAnswerTooLarge = fmt.Errorf("answer larger than %d MiB: the platform (or something in between) sent far more "+
	"than the API ever does, so the provider stopped reading", maxAnswerBytes>>20)

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
)

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

const acceptJSON = "application/json, application/hal+json, application/problem+json"

// authMode says which credential a request carries.
type authMode int

const (
	authNone     authMode = iota
	authAdmin             // the shared administrator session, header "token"
	authPlatform          // the shared platform access token, Bearer
	authBearer            // an explicit access token (request.cred), Bearer
	authSession           // an explicit administrator session (request.cred), header "token"
)

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
}

// unwrap returns the value of a 2xx answer: the member key of a JSON object that has
// it, else the whole body. The specification shows no response body of the score
// endpoints, so a platform may send {"score": {…}} (the contract) or the score alone,
// {"count": 5} or 5, {"scores": […]} or […].
func unwrap(body []byte, key string) []byte {
	if key == "" {
		return body
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	if v, ok := doc[key]; ok {
		return v
	}
	return body
}

// response is a complete HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
	url    *url.URL // address of the request, for resolving relative hrefs
	// sent and received bound the exchange of the last attempt on this machine's
	// clock, for reading the platform's clock from its Date header.
	sent, received time.Time
}

// do runs r with the credential it needs, retrying once with a fresh login
// when the shared session or token is rejected: with 401, or with 403 when the
// credential is one loaded before this call, which may have expired since (the
// specification shows neither status; a platform may answer an expired session with
// 403, and only a 403 to a fresh credential says that the account lacks a right). A
// 2xx body is decoded into out (when non-nil), out of its wrapper when r.wrapper
// names one; any other status becomes an *APIError.
func (c *Client) do(ctx context.Context, r *request, out any) (*response, error) {
	ctx = c.logContext(ctx)
	for attempt := 1; ; attempt++ {
		loadsBefore := c.credLoads.Load()
		var cred string
		switch r.auth {
		case authAdmin:
			s, err := c.adminSession(ctx)
			if err != nil {
				return nil, err
			}
			cred = s
		case authPlatform:
			t, err := c.token.get(ctx, c.renewToken)
			if err != nil {
				return nil, err
			}
			cred = t.Token
		case authBearer, authSession:
			cred = r.cred
		}

		held := c.credLoads.Load() == loadsBefore // the credential was there before this call
		resp, err := c.send(maskCredential(ctx, cred), r, cred)
		if err != nil {
			return nil, err
		}
		rejected := resp.status == http.StatusUnauthorized || (resp.status == http.StatusForbidden && held)
		if rejected && attempt == 1 && (r.auth == authAdmin || r.auth == authPlatform) {
			// The credential expired or was invalidated: drop it (unless another
			// goroutine already replaced it), log in again once and retry.
			logDebug(ctx, "credential rejected, logging in again", map[string]any{
				"method": r.method, "path": pathOf(resp.url), "status": resp.status,
			})
			if r.auth == authAdmin {
				c.session.resetIf(func(s string) bool { return s == cred })
			} else {
				c.token.resetIf(func(t *AccessToken) bool { return t.Token == cred })
			}
			continue
		}
		if resp.status >= 300 && resp.status <= 399 {
			// Servers never redirect an API call (contract §0), and following one would
			// send the credential to wherever it points.
			return resp, &RedirectError{Method: r.method, Path: pathOf(resp.url), Status: resp.status,
				Target: redactURL(resp.header.Get("Location"))}
		}
		if resp.status < 200 || resp.status > 299 {
			apiErr := parseAPIError(r.method, resp)
			apiErr.Host, apiErr.Setting = resp.url.Host, c.settingFor(resp.url)
			apiErr.Proxy, apiErr.ProxyVar = c.proxyFor(resp.url)
			apiErr.HeadersSet = len(c.cfg.RequestHeaders) > 0 && hostIn(resp.url, c.platformHosts())
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
			if uerr := json.Unmarshal(unwrap(resp.body, r.wrapper), out); uerr != nil {
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
		c.clock.observe(resp.url.Host, resp.header.Get("Date"), resp.sent, resp.received)
		return resp, nil
	}
}

// attemptInfo carries per-call state through the retry loop (in the request
// context), so that the shared retry policy can tell calls apart.
type attemptInfo struct {
	retrySafe bool
	attempt   int
	start     time.Time // when the first attempt began
	sent      time.Time // when the latest attempt began
	// rateLimited counts the attempts answered 429: they spend the rate-limit
	// budget, not max_retries, so that a rate limit does not use up the retries
	// meant for other failures.
	rateLimited int
	body        []byte
	bodyRead    bool
}

// failures is the number of attempts so far that max_retries counts: every
// attempt but those answered 429.
func (a *attemptInfo) failures() int { return a.attempt - a.rateLimited }

type attemptKey struct{}

func attemptFrom(ctx context.Context) *attemptInfo {
	info, _ := ctx.Value(attemptKey{}).(*attemptInfo)
	return info
}

// send performs one logical HTTP exchange (with transport-level retries) and
// reads the whole response.
func (c *Client) send(ctx context.Context, r *request, cred string) (*response, error) {
	u, err := url.Parse(r.url)
	if err != nil {
		return nil, fmt.Errorf("invalid address %q: %w", r.url, err)
	}
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	path := pathOf(u)

	var body any
	contentType := ""
	switch {
	case r.body != nil:
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encoding request: %w", r.method, path, err)
		}
		body, contentType = b, "application/json"
	case r.form != nil:
		body, contentType = []byte(r.form.Encode()), "application/x-www-form-urlencoded"
	}

	info := &attemptInfo{retrySafe: r.repeatable(), start: time.Now()}
	ctx = context.WithValue(ctx, attemptKey{}, info)
	ctx, platform := c.forPlatform(ctx, u)
	req, err := retryablehttp.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, path, err)
	}
	if platform {
		// A gateway's access headers: set first, so that none replaces the provider's own.
		c.setRequestHeaders(req.Header)
	}
	req.Header.Set("User-Agent", c.userAgent)
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	} else {
		req.Header.Set("Accept", acceptJSON)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	switch {
	case r.basic != "":
		req.Header.Set("Authorization", "Basic "+r.basic)
	case r.auth == authAdmin || r.auth == authSession:
		req.Header.Set("token", cred)
	case r.auth == authPlatform || r.auth == authBearer:
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	// Read the body inside the retry loop, so that a connection dropped while
	// the answer arrives is retried like any other connection error.
	req.SetResponseHandler(func(resp *http.Response) error {
		defer resp.Body.Close()
		b, err := readAnswer(resp.Body)
		info.body, info.bodyRead = b, err == nil
		return err
	})

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if resp != nil && !info.bodyRead {
			resp.Body.Close()
		}
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err // its message repeats the whole address
		}
		var retryAfter *RetryAfterError
		if errors.As(err, &retryAfter) || errors.Is(err, errAnswerTooLarge) {
			// A 429/503 comes before any effect; an oversized answer came after it, but
			// repeating the call would only bring the same answer.
			return nil, fmt.Errorf("%s %s: %w", r.method, path, err)
		}
		if isCertificateError(err) || isPlainHTTP(err) || tlsAlert(err) != "" {
			// The handshake failed, so nothing was sent: the outcome is known.
			return nil, c.networkError(r.method, u, err, info.attempt)
		}
		var netErr error = c.networkError(r.method, u, err, info.attempt)
		if ctx.Err() != nil {
			// The caller stopped waiting (a Terraform timeout or interrupt): not the network.
			netErr = fmt.Errorf("%s %s: %w", r.method, path, err)
		}
		if !info.retrySafe && !isDialError(err) {
			return nil, r.unknownOutcome(path, netErr)
		}
		return nil, netErr
	}
	if !info.bodyRead {
		// Retries ran out on a retryable status; the handler did not run.
		b, err := readAnswer(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s %s: reading response: %w", r.method, path, err)
		}
		info.body = b
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: info.body, url: u, sent: info.sent, received: time.Now()}, nil
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

// checkRetry is the retry policy: 429 and 503 are always retried (the contract
// guarantees they come before any effect); connection errors, 502 and 504 only for
// calls that are safe to repeat, except a failed dial, which never reached the
// server. A 429 is retried within the call's rate-limit budget (time, however many
// attempts) and does not count against max_retries; everything else is retried
// max_retries times; a Retry-After longer than the budget left ends the call.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	info := attemptFrom(ctx)
	if info == nil {
		info = &attemptInfo{attempt: 1, start: time.Now()}
	}
	safe := info.retrySafe
	attempt := info.attempt
	withinCount := info.failures() <= c.cfg.MaxRetries
	if err != nil {
		if ctx.Err() != nil || !transient(err) {
			return false, err
		}
		retry := (safe || isDialError(err)) && withinCount
		if isTimeout(err) && info.failures() >= 2 {
			// Nothing answered twice within request_timeout: more attempts would only make
			// a CI job wait max_retries × request_timeout for the same silence.
			retry = false
		}
		if retry {
			logDebug(ctx, "retrying after a connection error", map[string]any{"error": err.Error(), "attempt": attempt})
		}
		return retry, err
	}
	retry := false
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		if c.cfg.MaxRetries == 0 {
			break
		}
		asked, hasRetryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		elapsed := time.Since(info.start)
		if resp.StatusCode == http.StatusTooManyRequests {
			info.rateLimited++
		}
		budget := c.retryBudget(resp.StatusCode)
		// A wait longer than what is left fails at once, naming the wait; a budget
		// already spent ends in the status itself ("kept answering 429").
		if left := budget - elapsed; hasRetryAfter && left > 0 && asked > left &&
			(resp.StatusCode != http.StatusServiceUnavailable || withinCount) {
			return false, &RetryAfterError{Wait: asked, Left: max(budget-elapsed, 0), Status: resp.StatusCode}
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
		retry = safe && withinCount
	}
	if retry {
		logDebug(ctx, "retrying after a transient answer", map[string]any{
			"status": resp.StatusCode, "retry_after": resp.Header.Get("Retry-After"), "attempt": attempt,
		})
	}
	return retry, nil
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

// transient reports whether a transport error may go away on its own.
func transient(err error) bool {
	var recordHeader tls.RecordHeaderError
	switch {
	case isCertificateError(err), tlsAlert(err) != "", errors.As(err, &recordHeader), errors.Is(err, errAnswerTooLarge):
		return false
	case strings.Contains(err.Error(), "unsupported protocol scheme"),
		strings.Contains(err.Error(), "stopped after"): // too many redirects
		return false
	}
	return true
}

// isCertificateError reports whether err is the failed verification of the
// server's TLS certificate.
func isCertificateError(err error) bool {
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verification *tls.CertificateVerificationError
	return errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &verification)
}

// tlsAlert returns the alert of a TLS handshake the server ended ("certificate
// required", "bad certificate", "unknown certificate authority", …), or "". A gateway
// that demands a client certificate ends the handshake so, before any request is
// read: nothing was sent.
func tlsAlert(err error) string {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "remote error" && opErr.Err != nil {
		return strings.TrimPrefix(opErr.Err.Error(), "tls: ")
	}
	return ""
}

// isPlainHTTP reports whether err is an https:// request answered in plain HTTP: the
// TLS handshake met no TLS record (net/http says so in words when the answer looks
// like HTTP).
func isPlainHTTP(err error) bool {
	var recordHeader tls.RecordHeaderError
	return errors.As(err, &recordHeader) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// tlsProblem classifies a failed certificate verification for host by cause.
func tlsProblem(err error, host string) *TLSProblem {
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var unknownAuthority x509.UnknownAuthorityError
	p := &TLSProblem{Kind: TLSOther, Host: host}
	switch {
	case errors.As(err, &hostname) && hostname.Certificate != nil:
		p.Kind = TLSOtherNames
		p.Names = append(p.Names, hostname.Certificate.DNSNames...)
		for _, ip := range hostname.Certificate.IPAddresses {
			p.Names = append(p.Names, ip.String())
		}
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired && invalid.Cert != nil:
		p.Kind = TLSExpired
		p.NotBefore, p.NotAfter, p.Now = invalid.Cert.NotBefore, invalid.Cert.NotAfter, time.Now()
	case errors.As(err, &unknownAuthority):
		p.Kind = TLSAuthority
	}
	return p
}

// isTimeout reports whether err is a request that ran out of time (request_timeout).
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// networkError classifies a transport error of a request to u.
func (c *Client) networkError(method string, u *url.URL, err error, attempts int) *NetworkError {
	e := &NetworkError{
		Method: method, Path: pathOf(u), Host: u.Host, Setting: c.settingFor(u),
		Kind: NetworkOther, Timeout: c.cfg.RequestTimeout, Attempts: attempts, Err: err,
	}
	e.Proxy, e.ProxyVar = c.proxyFor(u)
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr) && opErr.Op == "proxyconnect":
		e.Kind = NetworkProxy
	case isPlainHTTP(err):
		e.Kind = NetworkPlainHTTP
	case tlsAlert(err) != "":
		// The server ended the handshake: for the client certificate, or its absence.
		e.Kind = NetworkTLS
		e.TLS = &TLSProblem{Kind: TLSClientCertRejected, Host: u.Hostname(), Alert: tlsAlert(err)}
		if c.cfg.ClientCertPEM == "" || e.TLS.Alert == "certificate required" {
			e.TLS.Kind = TLSClientCertMissing
		}
	case isCertificateError(err):
		e.Kind = NetworkTLS
		e.TLS = tlsProblem(err, u.Hostname())
	case errors.As(err, &dnsErr):
		e.Kind = NetworkDNS
	case isTimeout(err):
		e.Kind = NetworkTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind = NetworkRefused
	}
	return e
}

// settingFor names the provider setting whose address has u's scheme and host.
func (c *Client) settingFor(u *url.URL) string {
	publishing, _ := c.PublishingURL()
	for _, s := range []struct{ name, value string }{
		{"publishing_url", publishing}, {"admin_url", c.cfg.AdminURL},
		{"platform_url", c.cfg.PlatformURL}, {"registry_url", c.cfg.RegistryURL},
	} {
		if s.value != "" && hostIn(u, []string{s.value}) && strings.HasPrefix(u.String(), strings.TrimRight(s.value, "/")) {
			return s.name
		}
	}
	for _, s := range []struct{ name, value string }{
		{"platform_url", c.cfg.PlatformURL}, {"admin_url", c.cfg.AdminURL}, {"publishing_url", publishing},
	} {
		if s.value != "" && hostIn(u, []string{s.value}) {
			return s.name
		}
	}
	return ""
}

// isDialError reports whether err happened while connecting, before anything
// was sent.
func isDialError(err error) bool {
	var opErr *net.OpError
	// proxyconnect: connecting to the forward proxy failed, before any request left.
	return errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect")
}

// proxyFor returns host:port of the forward proxy a request to u goes through, and the
// environment variable whose value names it ("" when the proxy came from elsewhere);
// both "" for a direct connection.
func (c *Client) proxyFor(u *url.URL) (proxy, variable string) {
	if c.proxy == nil {
		return "", ""
	}
	p, err := c.proxy(&http.Request{URL: u, Header: http.Header{}})
	if err != nil || p == nil {
		return "", ""
	}
	names := []string{"HTTP_PROXY", "http_proxy"}
	if u.Scheme == "https" {
		names = []string{"HTTPS_PROXY", "https_proxy"}
	}
	for _, name := range names {
		if v := os.Getenv(name); v != "" {
			pv, err := url.Parse(v)
			if err != nil || pv.Host == "" { // "proxy:3128" means http://proxy:3128, as for the transport
				pv, err = url.Parse("http://" + v)
			}
			if err == nil && pv.Host == p.Host {
				return p.Host, name
			}
		}
	}
	return p.Host, ""
}

// backoff waits as the server asks with Retry-After on 429 and 503, and
// otherwise exponentially from min to max with jitter (half to full delay).
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
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

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

// beforeAttempt runs before every attempt: it records the attempt number and waits
// while the client is paused by a rate limit.
func (c *Client) beforeAttempt(_ retryablehttp.Logger, req *http.Request, i int) {
	c.gate.wait(req.Context())
	if info := attemptFrom(req.Context()); info != nil {
		info.attempt = i + 1
		info.sent = time.Now()
	}
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
	mu     sync.Mutex
	until  time.Time
	spread time.Duration

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
	now := time.Now()
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
	now := time.Now()
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
		_ = sleepCtx(ctx, time.Until(slot))
	case left > 0:
		_ = sleepCtx(ctx, left+rand.N(spread))
	}
}

// RedirectError is a redirect answer to an API call. The client follows none:
// servers never redirect an API call, and a redirect would carry the credential.
type RedirectError struct {
	Method, Path string
	Status       int
	// Target is the Location, redacted (no user information or query).
	Target string
}

// Error names the call and where the platform redirected it.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("the platform redirected %s %s to %s (HTTP %d); the provider follows no redirect, since the "+
		"request carries credentials: set the address setting to the platform's own address", e.Method, e.Path, e.Target, e.Status)
}

// problem is the application/problem+json error body.
type problem struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Params  map[string]any `json:"params"`
	Status  int            `json:"status"`
}

// parseAPIError turns a non-2xx answer into an *APIError.
func parseAPIError(method string, resp *response) *APIError {
	e := &APIError{Status: resp.status, Method: method, Path: pathOf(resp.url)}
	contentType := resp.header.Get("Content-Type")
	jsonBody := isJSON(contentType)
	mediaType, _, _ := mime.ParseMediaType(contentType)
	body := bytes.TrimSpace(resp.body)
	e.HTML = !jsonBody && (mediaType == "text/html" || mediaType == "application/xhtml+xml" ||
		(len(body) > 0 && body[0] == '<'))
	var p problem
	if jsonBody && json.Unmarshal(resp.body, &p) == nil && (p.Code != "" || p.Message != "") {
		e.Code, e.Message, e.Params = p.Code, p.Message, p.Params
		return e
	}
	e.Message = http.StatusText(resp.status)
	if text := strings.TrimSpace(string(resp.body)); text != "" && !jsonBody &&
		!strings.HasPrefix(strings.ToLower(contentType), "text/html") {
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		e.Message += ": " + text
	}
	return e
}

// platformAnswer checks that a 2xx answer to r is the platform's: empty, or JSON
// (whatever its Content-Type says, so that a mislabelled answer still counts), or
// plain text for a call that takes text (r.textAnswer). Anything else, an HTML page
// above all, is a *ForeignAnswerError; a body labelled JSON that is not JSON, an
// *UnreadableAnswerError. Neither quotes a byte of the answer.
func (c *Client) platformAnswer(r *request, resp *response) error {
	body := bytes.TrimSpace(resp.body)
	if len(body) == 0 || json.Valid(body) {
		return nil
	}
	contentType := resp.header.Get("Content-Type")
	mediaType, _, _ := mime.ParseMediaType(contentType)
	html := mediaType == "text/html" || mediaType == "application/xhtml+xml" || body[0] == '<'
	switch {
	case r.textAnswer && mediaType == "text/plain":
		return nil
	case !html && isJSON(contentType):
		return &UnreadableAnswerError{Method: r.method, Path: pathOf(resp.url), Status: resp.status, Reason: jsonProblem(json.Unmarshal(body, new(any)))}
	}
	what := "a page of type " + mediaType
	switch {
	case html:
		what = "an HTML page"
	case mediaType == "":
		what = "an answer that is not JSON"
	}
	return &ForeignAnswerError{Method: r.method, Path: pathOf(resp.url), Status: resp.status, What: what, Setting: c.settingFor(resp.url)}
}

// jsonProblem describes why an answer is not the JSON expected, without quoting any
// of its bytes (a login or token answer holds a secret).
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("it is not valid JSON (at byte %d)", syntax.Offset)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Sprintf("its field %s holds a JSON %s where the API has another type", typeErr.Field, typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Sprintf("it is a JSON %s where the API answers with another type", typeErr.Value)
	case err != nil:
		return "it is not valid JSON (it ends too early)"
	}
	return "it is not valid JSON"
}

// isJSON reports whether a Content-Type is JSON (application/json or a +json
// type such as application/problem+json).
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// pathOf returns the path of u for messages and logs: never the query.
func pathOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	if p := u.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

// resolveHref resolves a possibly relative href against the document address.
func resolveHref(base *url.URL, href string) (string, error) {
	ref, err := url.Parse(href)
	if err != nil {
		return "", fmt.Errorf("invalid href %q: %w", href, err)
	}
	if base == nil {
		if !ref.IsAbs() {
			return "", fmt.Errorf("relative href %q without a base address", href)
		}
		return ref.String(), nil
	}
	return base.ResolveReference(ref).String(), nil
}
