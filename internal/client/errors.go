package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MissingSettingError reports a provider setting that a call needs and that is
// neither configured nor set in its environment variable.
type MissingSettingError struct {
	// Setting is the provider attribute, e.g. "admin_url".
	Setting string
	// EnvVar is the environment variable that can supply it.
	EnvVar string
	// Or names the setting that supplies it as well when set, also unset ("admin_url",
	// from which publishing_url is derived; "basic_token" for client_id), and OrEnvVar
	// that setting's environment variable; both "" when there is none.
	Or, OrEnvVar string
}

// Error names the setting, its environment variable and the setting that could
// have supplied it.
func (e *MissingSettingError) Error() string {
	msg := fmt.Sprintf("missing provider setting %q (environment variable %s)", e.Setting, e.EnvVar)
	if e.Or != "" {
		msg += fmt.Sprintf(", and %s (%s), which would supply it, is not set either", e.Or, e.OrEnvVar)
	}
	return msg
}

// APIError is an error answer of the platform, parsed from its
// application/problem+json body when there is one.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the message code, shaped <namespace>/<NAME>, e.g.
	// "publishing/NOT_FOUND". It is empty when the body was not a problem
	// document.
	Code string
	// Message is the human-readable error text.
	Message string
	// Params holds the parameters of the message, e.g. "field" for BAD_ARGUMENT.
	Params map[string]any
	// Method and Path identify the request (the path never carries a query).
	Method string
	Path   string
	// HTML is set when the body was an HTML page: something other than the
	// platform's API (a proxy, a firewall, another web server) may have answered.
	HTML bool
	// Host is host:port of the request and Setting the provider setting whose
	// address it is ("" when none matches).
	Host, Setting string
	// Proxy and ProxyVar name the forward proxy the request went through and the
	// environment variable that set it, as for NetworkError.
	Proxy, ProxyVar string
	// HeadersSet is set when the request carried the configured request_headers.
	HeadersSet bool
	// Tunnelled is set when the request went through the proxy in a tunnel (HTTPS):
	// the answer then came from beyond the proxy, never from the proxy itself.
	Tunnelled bool
	// ProxyLogin is set when the proxy's address (ProxyVar) carries a login.
	ProxyLogin bool
}

// Error gives the request, the status, the code and the message.
func (e *APIError) Error() string {
	var b strings.Builder
	if e.Method != "" {
		fmt.Fprintf(&b, "%s %s: ", e.Method, e.Path)
	}
	fmt.Fprintf(&b, "HTTP %d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Name returns the NAME part of Code (e.g. "NOT_FOUND").
func (e *APIError) Name() string {
	if i := strings.LastIndex(e.Code, "/"); i >= 0 {
		return e.Code[i+1:]
	}
	return e.Code
}

// Namespace returns the namespace part of Code (e.g. "admin"), or "".
func (e *APIError) Namespace() string {
	if i := strings.Index(e.Code, "/"); i >= 0 {
		return e.Code[:i]
	}
	return ""
}

// IsAdminLoginRefused reports whether err is the administrator API refusing the
// login of admin_username (a wrong user name or password).
func IsAdminLoginRefused(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == "admin/INVALID_CREDENTIALS"
}

// OAuthError is an error answer of the OAuth 2.0 token endpoint (RFC 6749
// section 5.2), e.g. invalid_grant for a wrong user name or password.
type OAuthError struct {
	// Status is the HTTP status code.
	Status int
	// ErrorCode is the body's "error" field, e.g. "invalid_client".
	ErrorCode string
	// Description is the body's "error_description" field, if any.
	Description string
}

// Error gives the status, the OAuth error code and its description.
func (e *OAuthError) Error() string {
	msg := fmt.Sprintf("platform token request failed: HTTP %d %s", e.Status, e.ErrorCode)
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
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

// IsAddressError reports whether err (or an error it wraps) is an *AddressError.
func IsAddressError(err error) bool {
	var a *AddressError
	return errors.As(err, &a)
}

// TokenServiceMovedError is a link of the token flow that answered 404 or 410 even
// after the client read /auth again: the token service moved (an upgrade of the
// identity service), and /auth does not lead to where it went, or not yet. It is
// never a "not found" of the object a call was for: IsNotFound is false for it.
type TokenServiceMovedError struct {
	// Method and Path are the request, Link the relation of the link it followed
	// ("auth:ropc-default"), Status the answer.
	Method, Path, Link string
	Status             int
	// Again is the path of the link found when /auth was read again, when it differs
	// from Path and answered 404 or 410 too; "" when /auth still leads to Path.
	Again string
	// Err is the last answer.
	Err error
}

// Error names the link, the answer, and what reading /auth again found.
func (e *TokenServiceMovedError) Error() string {
	again := ", and /auth, read again, still leads there"
	if e.Again != "" {
		again = fmt.Sprintf(", and so did %s, where /auth leads when read again", e.Again)
	}
	return fmt.Sprintf("%s %s (the %s link found through /auth) answered HTTP %d%s: %v", e.Method, e.Path, e.Link,
		e.Status, again, e.Err)
}

// Unwrap returns the last answer.
func (e *TokenServiceMovedError) Unwrap() error { return e.Err }

// statusOf returns the HTTP status carried by err's chain, or 0. An
// *AddressError hides the status of the answer it wraps: that answer came from
// something other than the platform's API; so does a *TokenServiceMovedError, whose
// answer was the token service's, not that of the object a call was for.
func statusOf(err error) int {
	var moved *TokenServiceMovedError
	if IsAddressError(err) || errors.As(err, &moved) {
		return 0
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Status
	}
	var oauthErr *OAuthError
	if errors.As(err, &oauthErr) {
		return oauthErr.Status
	}
	return 0
}

// IsNotFound reports whether err (or an error it wraps) is a 404 answer.
func IsNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// IsConflict reports whether err (or an error it wraps) is a 409 answer, such
// as a score alias already in use.
func IsConflict(err error) bool { return statusOf(err) == http.StatusConflict }

// IsUnauthorized reports whether err (or an error it wraps) is a 401 answer:
// wrong credentials, or a token or session that is missing or expired.
func IsUnauthorized(err error) bool { return statusOf(err) == http.StatusUnauthorized }

// IsForbidden reports whether err (or an error it wraps) is a 403 answer.
func IsForbidden(err error) bool { return statusOf(err) == http.StatusForbidden }

// IsBadArgument reports whether err (or an error it wraps) is a 400 answer.
func IsBadArgument(err error) bool { return statusOf(err) == http.StatusBadRequest }

// IsUnknownOutcome reports whether err (or an error it wraps) is an
// *UnknownOutcomeError.
func IsUnknownOutcome(err error) bool {
	var u *UnknownOutcomeError
	return errors.As(err, &u)
}

// credentialsRejected reports whether err is the platform refusing the configured
// credentials: an administrator login answered INVALID_CREDENTIALS, or a password
// grant answered invalid_client or invalid_grant. Asking again with the same
// credentials cannot succeed, so the client remembers such an answer.
func credentialsRejected(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.Name() == "INVALID_CREDENTIALS" {
		return true
	}
	var oauthErr *OAuthError
	return errors.As(err, &oauthErr) && (oauthErr.ErrorCode == "invalid_client" || oauthErr.ErrorCode == "invalid_grant")
}

// redactURL returns an address fit to print: without user information, query or
// fragment. A value that does not parse is replaced by a placeholder.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable address)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// ForeignHostError is an href, found in a platform document, that points at a
// host other than the platform's: the client refuses to send a credential there.
type ForeignHostError struct {
	// Href is the refused address and Platform the platform's, both redacted.
	Href, Platform string
}

// Error names both hosts and says that nothing was sent to the foreign one.
func (e *ForeignHostError) Error() string {
	return fmt.Sprintf("the platform's document links to %s, which is not on the platform (%s); refusing to send "+
		"credentials there", e.Href, e.Platform)
}

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
	default:
		what = "the connection to " + e.Host + " failed"
	}
	return fmt.Sprintf("%s %s: %s: %v", e.Method, e.Path, what, e.Err)
}

// Unwrap returns the transport error.
func (e *NetworkError) Unwrap() error { return e.Err }

// ForeignAnswerError is a 2xx answer whose body is not the platform's: an HTML page
// from a WAF, a captive portal or a catch-all web front end, or anything else that is
// neither empty nor JSON. It never counts as a success (contract §V).
type ForeignAnswerError struct {
	Method, Path string
	Status       int
	// What describes the body, e.g. "an HTML page".
	What string
	// Setting is the provider setting whose address answered, or "".
	Setting string
}

// Error names the call, the setting whose address answered, and what answered.
func (e *ForeignAnswerError) Error() string {
	setting := e.Setting
	if setting == "" {
		setting = "the platform's address setting"
	}
	return fmt.Sprintf("%s %s: the address in %s answered HTTP %d with %s, not the platform's JSON", e.Method, e.Path,
		setting, e.Status, e.What)
}

// UnreadableAnswerError is a 2xx answer labelled JSON that is not the JSON the API
// sends (cut short, or of another shape). Its message quotes none of the answer.
type UnreadableAnswerError struct {
	Method, Path string
	Status       int
	// Reason says what is wrong, e.g. "it is not valid JSON (at byte 12)".
	Reason string
}

// Error names the call and what is wrong with its answer.
func (e *UnreadableAnswerError) Error() string {
	return fmt.Sprintf("%s %s: the answer (HTTP %d) cannot be read: %s", e.Method, e.Path, e.Status, e.Reason)
}

// IsForeignAnswer reports whether err (or an error it wraps) is a 2xx answer that is
// not the platform's: a *ForeignAnswerError or an *UnreadableAnswerError.
func IsForeignAnswer(err error) bool {
	var foreign *ForeignAnswerError
	var unreadable *UnreadableAnswerError
	return errors.As(err, &foreign) || errors.As(err, &unreadable)
}

// SettingError is a provider setting whose value can never work (an address that is
// no http or https URL, an unknown refresh strategy): New refuses it.
type SettingError struct {
	// Setting is the provider argument and EnvVar its environment variable.
	Setting, EnvVar string
	// Value is the value given (addresses redacted), Problem what is wrong with it.
	Value, Problem string
}

// Error names the setting, its variable, the value and what is wrong.
func (e *SettingError) Error() string {
	return fmt.Sprintf("%s (%s) is %q: %s", e.Setting, e.EnvVar, e.Value, e.Problem)
}
