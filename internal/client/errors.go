package client

// The client's errors and their predicates. An error type lives in the file of the
// mechanism that returns it (RetryAfterError in request_retry.go, NetworkError in
// request_failure.go, UnknownOutcomeError in request.go); this file keeps the
// platform's error answers (APIError, and OAuthError from the token endpoint), the
// error types that several mechanisms return, and every predicate (IsNotFound,
// IsUnknownOutcome, …). An error states facts: what happened and where (method,
// address, status, the platform's own message); what to do about it is for the
// provider's lead to say. errors_test.go holds every type to both rules.

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

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
	// Query is set when the request carried a query string: arguments of the caller's
	// (a list's criteria), besides its address.
	Query bool
	// HTTPSOnly is set when a request to an http:// address was answered by a server
	// that speaks HTTPS there: its 400 says it was sent plain HTTP (plainHTTPRefusal).
	HTTPSOnly bool
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
	// Missing is the segment the address lacks ("/api/v1"), when the client can tell.
	Missing string
	// Service is the publishing service's name, when the platform answered that it has
	// no service of that name (Setting "publishing_service").
	Service string
	// Err is the answer that showed it.
	Err error
}

// Error names the setting and its address, then the answer.
func (e *AddressError) Error() string {
	return fmt.Sprintf("%s %s does not address the platform's API: %v", e.Setting, redactURL(e.Address), e.Err)
}

// Unwrap returns the answer that showed the address wrong.
func (e *AddressError) Unwrap() error { return e.Err }

// MissingMemberError reports an answer without a member the client needs to conclude
// (client.AnswerMembers lists them): what the client could not tell without it.
type MissingMemberError struct {
	// Member is the member's name on the wire, e.g. "status".
	Member string
	// Object names what the answer was about, e.g. "score 4f0c…".
	Object string
	// Need says what the member is needed for.
	Need string
}

// Error names the member, the object and what could not be concluded.
func (e *MissingMemberError) Error() string {
	return fmt.Sprintf("the platform's answers give %s no %s: %s", e.Object, e.Member, e.Need)
}

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

// PagingError is a walk over the pages of a listing that the platform's answers
// could not carry forward: a page read forward listed only scores already listed, or
// a page held more scores than asked for. The walk stops instead of looping.
type PagingError struct {
	// Offset is where the page that showed it started.
	Offset int
	// Detail says what the platform did.
	Detail string
}

// Error says what the platform did and what it means.
func (e *PagingError) Error() string {
	return "listing scores: " + e.Detail + ": the platform ignored the list's offset or limit parameters (sent both in " +
		"the query string and in a JSON body), so the listing stopped instead of reading the same scores for ever"
}

// OAuthError is an error answer of the OAuth 2.0 token endpoint (RFC 6749
// section 5.2), e.g. invalid_grant for a wrong user name or password: an answer in
// RFC 6749's form, or a 400 or 401 to the password grant in any other form (RFC 9457
// problem+json, plain text, {"error": {"code": …}}), which refuses the login as surely.
type OAuthError struct {
	// Status is the HTTP status code.
	Status int
	// ErrorCode is the body's "error" field, e.g. "invalid_client"; for a body in
	// another form, the OAuth error it names, or "" when it names none.
	ErrorCode string
	// Description is the body's "error_description" field, if any; for a body in
	// another form, its message (its detail, title or text).
	Description string
	// Method and Path identify the token request ("" when unknown).
	Method, Path string
	// Spaced are the credentials of the grant (client_id, client_secret, username,
	// password) that were sent starting or ending with whitespace.
	Spaced []SpacedSetting
}

// Error gives the request, the status, the OAuth error code and its description.
func (e *OAuthError) Error() string {
	msg := fmt.Sprintf("platform token request failed: HTTP %d %s", e.Status, e.ErrorCode)
	if e.ErrorCode == "" {
		msg = fmt.Sprintf("platform token request failed: HTTP %d (a body in another form than RFC 6749's, naming no "+
			"OAuth error)", e.Status)
	}
	if e.Method != "" {
		msg = e.Method + " " + e.Path + ": " + msg
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg + spacedNote(e.Spaced)
}

// spacedNote is the fact that credentials sent with a refused login started or ended
// with whitespace, or "".
func spacedNote(spaced []SpacedSetting) string {
	if len(spaced) == 0 {
		return ""
	}
	facts := make([]string, len(spaced))
	for i, s := range spaced {
		facts[i] = s.String()
	}
	return " (as sent, " + strings.Join(facts, "; ") + ")"
}

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

// IsNotFound reports whether err (or an error it wraps) is an answer that says the
// object the call addressed is not there: a status the table (statuses.go) reads as
// Gone, 404 Not Found or 410 Gone.
func IsNotFound(err error) bool { return meaningOf(err) == Gone }

// IsConflict reports whether err (or an error it wraps) is an answer the table reads
// as a Conflict, such as a 409 for a score alias already in use.
func IsConflict(err error) bool { return meaningOf(err) == Conflict }

// IsUnauthorized reports whether err (or an error it wraps) is a 401 answer:
// wrong credentials, or a token or session that is missing or expired.
func IsUnauthorized(err error) bool { return meaningOf(err) == RefusedCredentials }

// IsForbidden reports whether err (or an error it wraps) is an answer the table reads
// as NotAllowed: 403 Forbidden, and its kin (402, 451).
func IsForbidden(err error) bool { return meaningOf(err) == NotAllowed }

// IsBadArgument reports whether err (or an error it wraps) is an answer the table
// reads as RefusedArguments: 400, and its kin (413, 414, 415, 422, …).
func IsBadArgument(err error) bool { return meaningOf(err) == RefusedArguments }

// IsUnknownOutcome reports whether err (or an error it wraps) is an
// *UnknownOutcomeError.
func IsUnknownOutcome(err error) bool {
	var u *UnknownOutcomeError
	return errors.As(err, &u)
}

// IsAddressError reports whether err (or an error it wraps) is an *AddressError.
func IsAddressError(err error) bool {
	var a *AddressError
	return errors.As(err, &a)
}

// IsForeignAnswer reports whether err (or an error it wraps) is a 2xx answer that is
// not the platform's: a *ForeignAnswerError or an *UnreadableAnswerError.
func IsForeignAnswer(err error) bool {
	var foreign *ForeignAnswerError
	var unreadable *UnreadableAnswerError
	return errors.As(err, &foreign) || errors.As(err, &unreadable)
}

// IsAdminLoginRefused reports whether err is the administrator API refusing the
// login of admin_username (a wrong user name or password).
func IsAdminLoginRefused(err error) bool {
	var refused *AdminLoginRefusedError
	var apiErr *APIError
	return errors.As(err, &refused) || errors.As(err, &apiErr) && apiErr.Code == "admin/INVALID_CREDENTIALS"
}

// credentialsRejected reports whether err is the platform refusing the configured
// credentials: an administrator login refused (IsAdminLoginRefused, or
// INVALID_CREDENTIALS), or a password grant answered 400 or 401 (RFC 6749 §5.2), in
// whatever form its body takes. Asking again with the same credentials cannot
// succeed, and each refusal counts towards an account's lockout, so the client
// remembers such an answer.
func credentialsRejected(err error) bool {
	var apiErr *APIError
	if IsAdminLoginRefused(err) || errors.As(err, &apiErr) && apiErr.Name() == "INVALID_CREDENTIALS" {
		return true
	}
	var oauthErr *OAuthError
	return errors.As(err, &oauthErr) && (oauthErr.ErrorCode == "invalid_client" || oauthErr.ErrorCode == "invalid_grant" ||
		oauthErr.Status == http.StatusBadRequest || oauthErr.Status == http.StatusUnauthorized)
}

// redactURL returns an address fit to print: without user information, query or
// fragment. A value that does not parse is shown as addressShown leaves it, with
// every character that cannot be seen escaped (a line break as \n): the character
// that made it unparsable is the one the reader must find.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		q := strconv.Quote(addressShown(s))
		return q[1 : len(q)-1]
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// addressShown is an address that may not parse, cut by its text where url.Parse
// would cut it: without the user information of its authority (the part before
// its last '@'), its query and its fragment. Nothing else is changed.
func addressShown(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	rest, authorityAt := s, 0
	if i := strings.Index(s, "://"); i >= 0 {
		rest, authorityAt = s[i+3:], i+3
	}
	authority := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority = rest[:i]
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		s = s[:authorityAt] + rest[at+1:]
	}
	return s
}
