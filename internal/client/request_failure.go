package client

// What a failed connection says: a request that got no answer at all, classified by
// cause (refused, DNS, timeout, TLS, plain HTTP, a proxy, a stale connection) into a
// *NetworkError that names the address setting and the proxy it concerns; and an
// address that does not lead to the platform's API (*AddressError, in errors.go: the
// data models build it too).

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Kinds of *NetworkError.
const (
	NetworkRefused = "refused" // nothing accepts connections at the address
	NetworkDNS     = "dns"     // the host name does not resolve
	NetworkTimeout = "timeout" // nothing answered within request_timeout
	NetworkTLS     = "tls"     // the platform's TLS certificate is not trusted
	// NetworkPlainHTTP: an https:// address whose server answered in plain HTTP.
	NetworkPlainHTTP = "plain-http"
	// NetworkProxy: the forward proxy the request was to go through could not be
	// reached (Proxy and ProxyVar name it); nothing reached the platform.
	NetworkProxy = "proxy"
	// NetworkProxyRefused: the forward proxy answered the request for a tunnel
	// (CONNECT) with a refusal (ProxyStatus): a block policy's 403, a 407 for a
	// login. Nothing reached the platform.
	NetworkProxyRefused = "proxy-refused"
	NetworkOther        = "other" // the connection failed otherwise (reset, closed)
	// NetworkLocal: this machine refused to open the connection, for a limit of its
	// own (open files, memory, buffers), not the network: nothing was sent. OpenFiles
	// is the open-files limit in force and ConnsPerHost the connections per host the
	// client allows under it.
	NetworkLocal = "local"
	// NetworkStaleConnection: the server closed a connection kept open from an earlier
	// request as this one was sent on it, before any answer, and the request was not
	// sent again (its repetition is not harmless).
	NetworkStaleConnection = "stale-connection"
)

// NetworkError is a request that got no answer at all, classified by cause, with
// the address setting it went to, so that a message can lead with what to fix.
type NetworkError struct {
	Method, Path string
	// Host is host:port of the request; Setting the provider setting whose address
	// it is (e.g. "platform_url"), or "" when none matches.
	Host, Setting string
	// Kind is one of the Network* constants.
	Kind string
	// Timeout is request_timeout, Attempts how many attempts were made, and MaxRetries
	// the max_retries in force: a second silence ends the attempts before it is spent.
	Timeout    time.Duration
	Attempts   int
	MaxRetries int
	// TLS says why the certificate failed verification (Kind NetworkTLS only).
	TLS *TLSProblem
	// Proxy is host:port of the forward proxy the request went through ("" for a
	// direct connection), ProxyVar the environment variable that set it ("" when
	// unknown).
	Proxy, ProxyVar string
	// ProxyStatus is the proxy's answer to CONNECT ("407 Proxy Authentication
	// Required") and ProxyLogin whether the proxy's address carried a login (Kind
	// NetworkProxyRefused only).
	ProxyStatus string
	ProxyLogin  bool
	// OpenFiles is the process's open-files limit when the request failed (0 when it
	// cannot be read or is unlimited), and ConnsPerHost the connections per host the
	// client allows (Kind NetworkLocal only).
	OpenFiles    uint64
	ConnsPerHost int
	// Waited says that the request ended while it waited for one of those
	// connections, all busy, rather than failing to open one (Kind NetworkLocal only).
	Waited bool
	// Bypassed is the NO_PROXY entry that sent a request for which a proxy is
	// configured past that proxy, straight to the host ("" when the request was not
	// sent past a proxy).
	Bypassed, BypassedProxyVar string
	Err                        error
}

// Why a platform's TLS certificate failed verification, by cause.
const (
	TLSOtherNames = "names"     // the certificate was issued for other names than the host used
	TLSExpired    = "expired"   // the certificate is expired, or not valid yet, by this machine's clock
	TLSAuthority  = "authority" // no trusted authority signed the certificate
	TLSOther      = "other"     // anything else (a certificate not fit for a server, a broken chain)
	// TLSClientCertMissing: the server demands a client certificate and none was sent.
	TLSClientCertMissing = "client-cert-missing"
	// TLSClientCertRejected: the server refused the client certificate sent.
	TLSClientCertRejected = "client-cert-rejected"
)

// TLSProblem is the cause of a failed certificate verification.
type TLSProblem struct {
	// Kind is one of the TLS* constants.
	Kind string
	// Host is the name the request used; Names the DNS names and addresses the
	// certificate was issued for (TLSOtherNames).
	Host  string
	Names []string
	// NotBefore and NotAfter bound the certificate's validity (TLSExpired).
	NotBefore, NotAfter time.Time
	// Now is this machine's time at verification (TLSExpired).
	Now time.Time
	// Alert is the server's TLS alert (TLSClientCertMissing, TLSClientCertRejected).
	Alert string
	// Issuer names the authority that signed the server's certificate, and CASet
	// whether ca_cert_pem named authorities to trust (TLSAuthority).
	Issuer string
	CASet  bool
}

// String says what is wrong with the certificate.
func (p *TLSProblem) String() string {
	switch p.Kind {
	case TLSOtherNames:
		names := "no names"
		if len(p.Names) > 0 {
			names = strings.Join(p.Names, ", ")
		}
		return fmt.Sprintf("the TLS certificate is issued for %s, not for %s", names, p.Host)
	case TLSExpired:
		if p.Now.Before(p.NotBefore) {
			return fmt.Sprintf("the TLS certificate is valid only from %s, and this machine's clock says %s",
				p.NotBefore.UTC().Format(time.RFC3339), p.Now.UTC().Format(time.RFC3339))
		}
		return fmt.Sprintf("the TLS certificate expired at %s (this machine's clock says %s)",
			p.NotAfter.UTC().Format(time.RFC3339), p.Now.UTC().Format(time.RFC3339))
	case TLSAuthority:
		return "the TLS certificate is signed by an authority this machine does not trust"
	case TLSClientCertMissing:
		return "the server demands a client certificate and none was sent (TLS alert: " + p.Alert + ")"
	case TLSClientCertRejected:
		return "the server refused the client certificate (TLS alert: " + p.Alert + ")"
	}
	return "the TLS certificate is not valid for this connection"
}

// Error says what happened where, then the transport's own error.
func (e *NetworkError) Error() string {
	var what string
	switch e.Kind {
	case NetworkRefused:
		what = "nothing accepts connections at " + e.Host
	case NetworkDNS:
		what = "the host name of " + e.Host + " does not resolve"
	case NetworkTimeout:
		what = fmt.Sprintf("nothing answered at %s within %s (request_timeout) × %d attempt(s)", e.Host, e.Timeout, max(e.Attempts, 1))
	case NetworkPlainHTTP:
		what = "the server at " + e.Host + " answered in plain HTTP, not HTTPS"
	case NetworkTLS:
		what = "the TLS certificate of " + e.Host + " is not trusted"
		if e.TLS != nil {
			what = e.TLS.String() + " (" + e.Host + ")"
		}
	case NetworkProxy:
		what = "the proxy at " + e.Proxy + " could not be reached on the way to " + e.Host
	case NetworkProxyRefused:
		what = "the proxy at " + e.Proxy + " refused the tunnel to " + e.Host + " (" + e.ProxyStatus + ")"
	case NetworkStaleConnection:
		what = "the server at " + e.Host + " closed the connection kept open from an earlier request as this one was sent on it"
	case NetworkLocal:
		what = "this machine could not open a connection to " + e.Host + " and nothing was sent"
		if e.Waited {
			what = fmt.Sprintf("all %d connections to %s that the client opens were busy until the request ended, and "+
				"nothing was sent", e.ConnsPerHost, e.Host)
		}
		if e.OpenFiles > 0 {
			what += fmt.Sprintf(" (open-files limit %d, at most %d connections per host)", e.OpenFiles, e.ConnsPerHost)
		}
	default:
		what = "the connection to " + e.Host + " failed"
	}
	return fmt.Sprintf("%s %s: %s: %v", e.Method, e.Path, what, e.Err)
}

// Unwrap returns the transport error.
func (e *NetworkError) Unwrap() error { return e.Err }

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
		if cert := unknownAuthority.Cert; cert != nil {
			p.Issuer = issuerName(cert)
		}
	}
	return p
}

// issuerName names the authority that signed cert: its common name, else its whole
// distinguished name.
func issuerName(cert *x509.Certificate) string {
	if cert.Issuer.CommonName != "" {
		return cert.Issuer.CommonName
	}
	return cert.Issuer.String()
}

// isLocalLimit reports whether err is this machine refusing a resource, not the
// network failing: the process's or the system's open files (EMFILE, ENFILE), or
// the kernel's buffers or memory (ENOBUFS, ENOMEM). Trying again at once meets the
// same limit, and the advice is about this machine.
func isLocalLimit(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// maxConnsPerHost caps the connections the client opens to one host, whatever the
// open-files limit: Terraform's -parallelism rarely exceeds it, and a platform is
// better served by calls that wait for a free connection than by more connections.
const maxConnsPerHost = 64

// connsPerHostFor is the connections per host the client allows under an open-files
// limit of limit (0: unknown): a quarter of it, so that the process keeps files for
// its plugin connection, its logs and the platform's other hosts, and at least 2.
// A call that finds none free waits for one (http.Transport.MaxConnsPerHost) instead
// of failing with EMFILE and spending its retries.
func connsPerHostFor(limit uint64) int {
	if limit == 0 || limit/4 >= maxConnsPerHost {
		return maxConnsPerHost
	}
	return max(2, int(limit/4))
}

// isTimeout reports whether err is a request that ran out of time (request_timeout).
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// networkError classifies a transport error of a request to u.
func (c *Client) networkError(method string, rt route, err error, attempts int) *NetworkError {
	u := rt.url
	e := &NetworkError{
		Method: method, Path: pathOf(u), Host: u.Host, Setting: rt.setting,
		Kind: NetworkOther, Timeout: c.cfg.RequestTimeout, Attempts: attempts, MaxRetries: c.cfg.MaxRetries, Err: err,
	}
	e.Proxy, e.ProxyVar = rt.proxy, rt.proxyVar
	if e.Proxy == "" {
		e.Bypassed, e.BypassedProxyVar = bypassedProxy(u)
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var refused *tunnelRefusedError
	var stale *staleConnError
	var waited *connectionWaitError
	switch {
	case isLocalLimit(err):
		e.Kind, e.OpenFiles, e.ConnsPerHost = NetworkLocal, openFilesLimit(), c.connsPerHost
	case errors.As(err, &waited):
		e.Kind, e.Waited, e.OpenFiles, e.ConnsPerHost = NetworkLocal, true, openFilesLimit(), c.connsPerHost
	case errors.As(err, &stale):
		e.Kind, e.Err = NetworkStaleConnection, stale.err
	case errors.As(err, &refused):
		e.Kind, e.ProxyStatus, e.ProxyLogin = NetworkProxyRefused, refused.status, refused.login
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
		e.TLS.CASet = c.cfg.CACertPEM != ""
	case errors.As(err, &dnsErr):
		e.Kind = NetworkDNS
	case isTimeout(err):
		e.Kind = NetworkTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Kind = NetworkRefused
	}
	return e
}

// addressError turns a 404 for a path the platform always serves (path, under the
// address of setting) into an *AddressError that says what answered instead, as far
// as the answer shows it; any other error is returned as it is.
func (c *Client) addressError(setting, address, path string, err error) error {
	var apiErr *APIError
	if !IsNotFound(err) || errors.As(err, &apiErr) && !requestedAt(apiErr, address) {
		// Not a 404, or the 404 of another request (the token flow's, before this one).
		return err
	}
	e := &AddressError{Setting: setting, Address: address, Path: path, Err: err, Answered: answeredBy(err)}
	derived := strings.HasPrefix(setting, "admin_url (with")
	if derived {
		// The address is admin_url's; publishing_service is named where the platform
		// says the service is what is missing (below), or in Expected.
		e.Setting = "admin_url"
	}
	switch admin := strings.TrimRight(c.cfg.AdminURL, "/"); {
	case (setting == "admin_url" || derived) && admin != "" && versionSegmentMissing(admin) != "":
		// Without the version segment every path under admin_url misses.
		e.Setting, e.Address, e.Missing = "admin_url", c.cfg.AdminURL, versionSegmentMissing(admin)
		e.Expected = redactURL(admin) + e.Missing
		return e
	case derived && errors.As(err, &apiErr) && (apiErr.Namespace() == "publishing" || apiErr.Namespace() == "admin"):
		// The administrator API answered, in its own words, for no service of this name.
		e.Setting, e.Service = "publishing_service", c.publishingService()
		return e
	}
	if setting == "registry_url" && c.cfg.PlatformURL != "" {
		e.Expected = fmt.Sprintf("the service registry's address, usually %s/apis/registry;version=0/serviceroots "+
			"(or leave registry_url unset for that default)", redactURL(strings.TrimRight(c.cfg.PlatformURL, "/")))
	}
	if derived {
		e.Expected = fmt.Sprintf("the administrator API's address, under which the publishing service %q "+
			"(publishing_service) answers at /apis/%s;version=2;realm=global", c.publishingService(), c.publishingService())
		return e
	}
	if setting == "publishing_url" {
		if c.cfg.AdminURL != "" {
			e.Expected = fmt.Sprintf("the publishing service's address, %s/apis/%s;version=2;realm=global (admin_url, then "+
				"the service name)", redactURL(strings.TrimRight(c.cfg.AdminURL, "/")), c.publishingService())
		} else {
			e.Expected = "the publishing service's address, {admin_url}/apis/" + c.publishingService() + ";version=2;realm=global"
		}
	}
	return e
}

// requestedAt reports whether the request that e answered went to address (its host
// and a path under address's): an error that wraps a failed request of another
// address (the token flow's discovery before a publish) is not address's.
func requestedAt(e *APIError, address string) bool {
	u, err := url.Parse(address)
	if err != nil || e.Host == "" {
		return true // nothing to tell them apart by
	}
	return strings.EqualFold(e.Host, u.Host) && strings.HasPrefix(e.Path, strings.TrimRight(u.EscapedPath(), "/"))
}

// versionSegmentMissing returns what the administrator API's address admin lacks of
// the version-1 segment its path ends in (contract §A: https://host/api/v1), or ""
// when its path ends in a version segment (v1, or another version: a wrong one, which
// no segment added mends).
func versionSegmentMissing(admin string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return ""
	}
	last := u.Path[strings.LastIndex(u.Path, "/")+1:]
	switch {
	case versionSegment.MatchString(last):
		return ""
	case last == "api":
		return "/v1"
	}
	return "/api/v1"
}

// versionSegment is an API's version segment: v1, v2, ….
var versionSegment = regexp.MustCompile(`^v[0-9]+$`)

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
