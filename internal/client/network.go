package client

// The network around the platform: which hosts are the platform's (only they get
// credentials, access headers and the client certificate), the access headers a
// gateway demands, an address that does not lead to the platform's API
// (*AddressError), and a kept-alive connection the server closed (staleConnTransport).
// What a failed connection says is network_failure.go's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/textproto"
	"net/url"
	"strings"
	"sync/atomic"
)

// platformHosts are the addresses of the platform's own hosts: where credentials,
// the client certificate and the request headers may go.
func (c *Client) platformHosts() []string {
	publishing, _ := c.PublishingURL()
	hosts := []string{c.cfg.AdminURL, c.cfg.PlatformURL, publishing, c.cfg.RegistryURL}
	for _, h := range c.cfg.PlatformHosts {
		if strings.Contains(h, "://") { // a host of the platform's own, reached as written
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// ParsePlatformHosts reads MEDIAPLATFORM_PLATFORM_HOSTS: entries separated by commas,
// spaces around them and empty ones dropped.
func ParsePlatformHosts(text string) []string {
	var hosts []string
	for _, h := range strings.Split(text, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// PlatformHostProblem says what is wrong with an entry of platform_hosts, or "": a
// host[:port] (another name of the platform), or scheme://host[:port] (a host of the
// platform's own), with nothing else.
func PlatformHostProblem(entry string) string {
	text := entry
	if !strings.Contains(entry, "://") {
		text = "http://" + entry
	}
	u, err := url.Parse(text)
	switch {
	case err != nil || u.Host == "" || u.Hostname() == "":
		return fmt.Sprintf("%q is not a host name or address with an optional port (host, host:port, [::1]:8443)", entry)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q has the scheme %s; only http and https are the platform's", entry, u.Scheme)
	case u.User != nil:
		return fmt.Sprintf("%q carries a user name or password; give the host alone", entry)
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "":
		return fmt.Sprintf("%q has a path, query or fragment; give the host alone (host or host:port)", entry)
	case u.Port() != "" && strings.Trim(u.Port(), "0123456789") != "":
		return fmt.Sprintf("%q has a port that is not a number", entry)
	}
	return ""
}

// viaPlatformHosts returns where a request for u goes when u names a host of
// platform_hosts, and whether it does: at platform_url's address (its scheme, host and
// port; the path and query of u) for another name of the platform (host[:port], a port
// left out being the scheme's default), so that a name this machine cannot reach
// still leads to the platform; as written for a host given with its scheme. Every
// other host is named by no one: nothing is sent there.
func (c *Client) viaPlatformHosts(u *url.URL) (*url.URL, bool) {
	for _, h := range c.cfg.PlatformHosts {
		if strings.Contains(h, "://") {
			if hostIn(u, []string{h}) {
				return u, true
			}
			continue
		}
		named := &url.URL{Scheme: u.Scheme, Host: h}
		if hostKey(named) != hostKey(u) {
			continue
		}
		platform, err := url.Parse(c.cfg.PlatformURL)
		if err != nil || platform.Host == "" {
			return nil, false
		}
		at := *u
		at.Scheme, at.Host = platform.Scheme, platform.Host
		return &at, true
	}
	return nil, false
}

// setRequestHeaders adds the configured request headers to a request for one of the
// platform's hosts.
func (c *Client) setRequestHeaders(h http.Header) {
	for name, value := range c.cfg.RequestHeaders {
		h.Set(name, value)
	}
}

// OwnedHeaders are the request headers the provider sets itself, which
// request_headers may not replace.
var OwnedHeaders = []string{"Authorization", "Token", "Content-Type", "Host", "Content-Length"}

// CheckRequestHeader reports what is wrong with a request header for
// request_headers, or "".
func CheckRequestHeader(name, value string) string {
	canonical := textproto.CanonicalMIMEHeaderKey(name)
	for _, owned := range OwnedHeaders {
		if canonical == owned && owned == "Authorization" {
			return "the provider sets the header Authorization itself (the platform's credential): give a gateway's " +
				"credential in a header of its own, such as Proxy-Authorization"
		}
		if canonical == owned {
			return fmt.Sprintf("the provider sets the header %s itself", owned)
		}
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) {
		return fmt.Sprintf("%q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)
	}
	// RFC 9110 §5.5: no control character but the tab (net/http refuses the others).
	if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
		return fmt.Sprintf("the value of %s holds a control character (a line break, NUL or DEL; only the tab is allowed)", canonical)
	}
	return ""
}

// ParseRequestHeaders reads request_headers from its environment variable: a JSON
// object of strings.
func ParseRequestHeaders(text string) (map[string]string, error) {
	var h map[string]string
	if err := json.Unmarshal([]byte(text), &h); err != nil {
		return nil, fmt.Errorf("%s must be a JSON object of strings, e.g. {\"CF-Access-Client-Id\": \"…\"}: %s",
			EnvRequestHeaders, jsonProblem(err))
	}
	return h, nil
}

// addressError turns a 404 for a path the platform always serves (path, under the
// address of setting) into an *AddressError that says what answered instead, as far
// as the answer shows it; any other error is returned as it is.
func (c *Client) addressError(setting, address, path string, err error) error {
	if !IsNotFound(err) {
		return err
	}
	e := &AddressError{Setting: setting, Address: address, Path: path, Err: err, Answered: answeredBy(err)}
	if setting == "registry_url" && c.cfg.PlatformURL != "" {
		e.Expected = fmt.Sprintf("the service registry's address, usually %s/apis/registry;version=0/serviceroots "+
			"(or leave registry_url unset for that default)", redactURL(strings.TrimRight(c.cfg.PlatformURL, "/")))
	}
	if setting == "publishing_url" || strings.HasPrefix(setting, "admin_url (with") {
		if c.cfg.AdminURL != "" {
			e.Expected = fmt.Sprintf("the publishing service's address, %s/apis/%s;version=2;realm=global (admin_url, then "+
				"the service name)", redactURL(strings.TrimRight(c.cfg.AdminURL, "/")), c.publishingService())
		} else {
			e.Expected = "the publishing service's address, {admin_url}/apis/" + c.publishingService() + ";version=2;realm=global"
		}
	}
	return e
}

// answeredBy says what sent an error answer, by its form: the platform's other APIs
// by the namespace of their error codes, anything else by its kind of body.
func answeredBy(err error) string {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return ""
	}
	switch ns := apiErr.Namespace(); {
	case apiErr.HTML:
		return "a web server's HTML page, not the platform's API (whose errors are JSON)"
	case ns == "admin":
		return fmt.Sprintf("the administrator API (its error code %s)", apiErr.Code)
	case ns == "auth":
		return fmt.Sprintf("the platform's token service (its error code %s)", apiErr.Code)
	case ns == "publishing":
		return fmt.Sprintf("the publishing service, without this route (its error code %s)", apiErr.Code)
	case ns != "":
		return fmt.Sprintf("a service of the platform's other than the one this setting is for (its error code %s)", apiErr.Code)
	}
	return "a server that is not the platform's API (its answer has no error code of the platform's)"
}

// AddressError reports an answer that shows a configured address to be wrong: a
// path the platform does not serve (a typo, or a gateway that lacks the route)
// answered 404 where the platform itself never would. It is never a "not found":
// IsNotFound is false for it, so no object is dropped from the state on its word.
type AddressError struct {
	// Setting is the provider attribute whose address failed, e.g. "publishing_url".
	Setting string
	// Address is the configured address (printed redacted).
	Address string
	// Path is the path the platform always serves that answered 404 there.
	Path string
	// Answered says what answered instead of the platform's API, as far as the
	// answer shows it ("the administrator API (its error code admin/NOT_FOUND)").
	Answered string
	// Expected is what the setting's value looks like, when the client can tell.
	Expected string
	// Err is the answer that showed it.
	Err error
}

// Error names the setting and its address, then the answer.
func (e *AddressError) Error() string {
	return fmt.Sprintf("%s %s does not address the platform's API: %v", e.Setting, redactURL(e.Address), e.Err)
}

// Unwrap returns the answer that showed the address wrong.
func (e *AddressError) Unwrap() error { return e.Err }

// publishingService is the service name in the derived publishing address.
func (c *Client) publishingService() string {
	if c.cfg.PublishingService != "" {
		return c.cfg.PublishingService
	}
	return DefaultPublishingService
}

// publishingSetting names the setting the publishing address came from.
func (c *Client) publishingSetting() string {
	if c.cfg.PublishingURL == "" {
		return "admin_url (with publishing_service)"
	}
	return "publishing_url"
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

// staleConnTransport sends a request again, at once and on a new connection, when it
// failed before any answer on a connection kept open from an earlier request. Servers
// close idle kept-alive connections on their own schedule (Node.js after 5 s, load
// balancers after 60 s), and a request sent just as one closes is lost before the
// server reads it: nothing about the platform or the network, so the repeat spends
// neither max_retries nor the pace (it runs inside one attempt), and only a failure of
// the new connection too is the network's. net/http repeats such a request itself
// only for GET, HEAD, OPTIONS and TRACE; this does it for every request whose
// repetition is harmless (request.repeatable, or the method's for the exit's
// requests). Any other, a publish, fails with a *staleConnError, and its outcome is
// unknown as after any lost answer; once the platform has been seen closing idle
// connections, such a request takes a new connection of its own from the start.
type staleConnTransport struct {
	next  http.RoundTripper // the pool of kept-alive connections
	fresh http.RoundTripper // a new connection for every request
	// pool is the transport behind next, whose idle connections are closed once one of
	// them turned out closed by the server.
	pool http.RoundTripper
	// closesIdle is set once the server closed a connection while it lay idle.
	closesIdle atomic.Bool
}

// unsent is err, or for a request that ended without ever getting a connection and
// without starting one of its own (connected and dialed unset: every connection the
// transport allows to the host was busy until request_timeout or the caller's
// interrupt), a *connectionWaitError: nothing was sent. A dial or a TLS handshake
// that failed (a certificate, a plain-HTTP server on an https address) is its own
// cause, and says so itself.
func (t *staleConnTransport) unsent(err error, connected, dialed *atomic.Bool) error {
	if err == nil || connected.Load() || dialed.Load() || isDialError(err) {
		return err
	}
	return &connectionWaitError{err: err}
}

// connectionWaitError is a request that ended while it waited for a connection to
// its host, all of which (http.Transport.MaxConnsPerHost, connsPerHostFor) were busy:
// it was never sent.
type connectionWaitError struct{ err error }

func (e *connectionWaitError) Error() string {
	return "no connection to the host came free before the request ended, so nothing was sent: " + e.err.Error()
}

func (e *connectionWaitError) Unwrap() error { return e.err }

// staleConnError is a request that failed before any answer on a kept-alive
// connection that the server had closed, and that was not sent again.
type staleConnError struct{ err error }

func (e *staleConnError) Error() string {
	return "the server closed the connection, kept open from an earlier request, as this request was sent on it: " +
		e.err.Error()
}

func (e *staleConnError) Unwrap() error { return e.err }

// newStaleConnTransport wraps transport, logging every attempt of each send; a
// transport of another type than *http.Transport sends the repeat through itself.
func newStaleConnTransport(transport http.RoundTripper) *staleConnTransport {
	fresh := transport
	if t, ok := transport.(*http.Transport); ok {
		f := t.Clone()
		f.DisableKeepAlives = true // each request on a connection of its own, closed after it
		fresh = f
	}
	return &staleConnTransport{next: &loggingTransport{next: transport}, fresh: &loggingTransport{next: fresh}, pool: transport}
}

// RoundTrip sends req, and once more on a new connection when the one it took from
// the pool turned out closed (see staleConnTransport).
func (t *staleConnTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	repeatable := idempotent(req.Method)
	if l, ok := attemptOf(req.Context()); ok {
		repeatable = l.repeatable
	}
	var reused, answered, connected, dialed atomic.Bool
	traced := req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		ConnectStart:      func(string, string) { dialed.Store(true) },
		TLSHandshakeStart: func() { dialed.Store(true) },
		GotConn: func(info httptrace.GotConnInfo) {
			connected.Store(true)
			reused.Store(info.Reused)
		},
		GotFirstResponseByte: func() { answered.Store(true) },
	}))
	if !repeatable && t.closesIdle.Load() {
		// Under a rate limit or between a run's phases, every pooled connection may lie
		// idle longer than the server keeps it: a request that cannot be sent again is
		// not risked on one.
		resp, err := t.fresh.RoundTrip(traced)
		return resp, t.unsent(err, &connected, &dialed)
	}
	resp, err := t.next.RoundTrip(traced)
	if err = t.unsent(err, &connected, &dialed); err == nil || !reused.Load() || answered.Load() || req.Context().Err() != nil || isTimeout(err) || !transient(err) {
		return resp, err
	}
	t.closesIdle.Store(true)
	// The pool hands out the connection used last: when that one was closed while idle,
	// those idle for longer are closed too.
	if pool, ok := t.pool.(interface{ CloseIdleConnections() }); ok {
		pool.CloseIdleConnections()
	}
	again := req.Clone(req.Context())
	if repeatable && req.Body != nil && req.Body != http.NoBody {
		var berr error
		if req.GetBody == nil {
			berr = errors.New("no way to read the body again")
		} else {
			again.Body, berr = req.GetBody()
		}
		repeatable = berr == nil
	}
	if !repeatable {
		return resp, &staleConnError{err: err}
	}
	logDebug(req.Context(), "the connection kept open from an earlier request was closed before any answer; "+
		"sending the request again on a new connection", map[string]any{"method": req.Method, "path": pathOf(req.URL),
		"error": err.Error()})
	return t.fresh.RoundTrip(again)
}

// isDialError reports whether err happened while connecting or waiting for a
// connection, before anything was sent.
func isDialError(err error) bool {
	var opErr *net.OpError
	var refused *tunnelRefusedError
	// proxyconnect: connecting to the forward proxy failed, before any request left;
	// a refused tunnel: the proxy did not let it leave.
	var waited *connectionWaitError
	return errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect") || errors.As(err, &refused) ||
		errors.As(err, &waited)
}

// hostIn reports whether u has the scheme and host of one of the addresses.
func hostIn(u *url.URL, addresses []string) bool {
	for _, a := range addresses {
		if a == "" {
			continue
		}
		p, err := url.Parse(a)
		if err == nil && sameHost(p, u) {
			return true
		}
	}
	return false
}

// sameHost reports whether a and b name one scheme, host and port, however each is
// spelt: host names compare without case and without a final dot, IP addresses by
// value ([::1] is [0:0:0:0:0:0:0:1], an IPv4-mapped address its IPv4 one), and a port
// left out is the scheme's default.
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && hostKey(a) == hostKey(b)
}

// hostKey is u's host and port in one spelling for every spelling sameHost takes as
// one: the key of what is learned by host (the platform's clock).
func hostKey(u *url.URL) string {
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if ip, err := netip.ParseAddr(h); err == nil {
		h = ip.Unmap().String()
	}
	return net.JoinHostPort(h, portOf(u))
}

// portOf is u's port, or its scheme's default.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return strings.TrimLeft(p, "0")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// platformHref resolves href against platform_url and checks that it points
// at the platform, so that the access token is never sent elsewhere.
func (c *Client) platformHref(ctx context.Context, href string) (string, error) {
	if href == "" {
		return "", errors.New("no href given")
	}
	if c.cfg.PlatformURL == "" {
		return "", &MissingSettingError{Setting: "platform_url", EnvVar: EnvPlatformURL}
	}
	base, err := url.Parse(c.cfg.PlatformURL)
	if err != nil {
		return "", fmt.Errorf("invalid platform_url: %w", err)
	}
	ref, err := url.Parse(href)
	if err != nil {
		return "", fmt.Errorf("invalid href %q: %w", href, err)
	}
	u := base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("href %q is not an http or https address", href)
	}
	trusted := []string{c.cfg.PlatformURL, c.cfg.RegistryURL}
	if at, ok := c.viaPlatformHosts(u); ok && !hostIn(u, trusted) {
		return at.String(), nil
	}
	if !hostIn(u, trusted) {
		// Services listed by the registry may live on other hosts.
		if roots, err := c.serviceRoots(ctx); err == nil {
			for _, entries := range roots.resources {
				for _, e := range entries {
					trusted = append(trusted, e.Href)
				}
			}
		}
		if !hostIn(u, trusted) {
			return "", fmt.Errorf("href %q does not point at the platform (%s); refusing to send the access token there", href, base.Host)
		}
	}
	return u.String(), nil
}
