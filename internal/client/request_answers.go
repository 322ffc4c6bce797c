package client

// What an answer says: the platform's API errors, a redirect, a body that is not the
// platform's JSON, and a value read bare or in its wrapper.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

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

// decodeAnswer decodes the value of a 2xx answer into out (see unwrap). An absent or
// null value is its type's zero value (rule "absent means zero"): a platform that
// leaves out members holding their type's zero value (Go's omitempty, protojson,
// Jackson's NON_DEFAULT) answers an empty page as {} and a count of 0 as {}, which
// are an empty list and 0, not answers "of another type". Only a value that is not
// an object itself (a list, a number, a string) is read so: a bare object is the
// value.
func decodeAnswer(body []byte, wrapper string, out any) error {
	value := unwrap(body, wrapper)
	target := reflect.ValueOf(out)
	if wrapper != "" && target.Kind() == reflect.Pointer && !target.IsNil() {
		t := target.Type().Elem()
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		trimmed := bytes.TrimSpace(value)
		var doc map[string]json.RawMessage
		switch t.Kind() {
		case reflect.Struct, reflect.Map, reflect.Interface:
		default:
			if bytes.Equal(trimmed, []byte("null")) ||
				(len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &doc) == nil) {
				// {"count": null}, {} for {"count": 0}, {"total": 0} for {"scores": []}.
				zero := reflect.New(t)
				elem := target.Elem()
				for elem.Kind() == reflect.Pointer && elem.Type().Elem() != t {
					elem.Set(reflect.New(elem.Type().Elem()))
					elem = elem.Elem()
				}
				if elem.Kind() == reflect.Pointer {
					elem.Set(zero)
				} else {
					elem.Set(zero.Elem())
				}
				return nil
			}
			if isInteger(t.Kind()) {
				// A bare integer in any of its forms (rule "numbers"): {"count": 1E+2},
				// {"count": "5"}; anything else is no count.
				n, ok := integerValue(trimmed)
				if !ok {
					return nil
				}
				value = strconv.AppendInt(nil, n, 10)
			}
		}
	}
	return json.Unmarshal(value, out)
}

// isInteger reports whether kind is one of Go's integer kinds.
func isInteger(kind reflect.Kind) bool {
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// maxRedirects bounds the same-origin redirects followed for one request without
// credentials: nginx's slash and a context root take one or two; five leaves room
// for a chain of fronts and stops a loop early.
const maxRedirects = 5

// redirectTarget is the Location of a 3xx answer, resolved against the request's
// address, and whether resp is such an answer with a Location that can be read.
func redirectTarget(resp *response) (*url.URL, bool) {
	if resp.status < 300 || resp.status > 399 {
		return nil, false
	}
	loc := resp.header.Get("Location")
	if loc == "" {
		return nil, false
	}
	target, err := resp.url.Parse(loc)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") {
		return nil, false
	}
	return target, true
}

// carriesCredential reports whether r carries a credential: a session or token, the
// application's basic credential, or a form (in this API a form is a login or a
// password grant, and carries a password).
func (r *request) carriesCredential() bool {
	return r.auth != authNone || r.basic != "" || r.form != nil
}

// followable reports whether the redirect of r to target may be followed: r reads
// (GET or HEAD) and target is on the scheme, host and port r went to. The statuses
// that say "the same request, elsewhere" (301, 302, 303, 307, 308) are followed.
func followable(r *request, resp *response, target *url.URL) bool {
	switch resp.status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect,
		http.StatusPermanentRedirect:
	default:
		return false
	}
	return (r.method == http.MethodGet || r.method == http.MethodHead) && sameHost(target, resp.url)
}

// sessionRedirect reports whether the redirect of the credentialed request r to target
// says that its credential expired: target is on the same origin, and is a login page
// or answers an administrator call (whose API redirects only to its login form). A
// 303 to a write that is not a login page says the write was carried out (see
// seeOtherAfterWrite).
func sessionRedirect(r *request, resp *response, target *url.URL) bool {
	if !sameHost(target, resp.url) {
		return false
	}
	if loginPage(target) {
		return true
	}
	return r.auth == authAdmin && !seeOtherAfterWrite(r, resp)
}

// loginPage reports whether u is a login page by its path: a segment login, signin,
// sign-in, sign_in, logon or log-in, with or without an extension (Spring Security's
// /login, Django's /accounts/login/, ASP.NET's /Account/Login, /login.jsp).
func loginPage(u *url.URL) bool {
	for _, seg := range strings.Split(u.Path, "/") {
		name, _, _ := strings.Cut(strings.ToLower(seg), ".")
		switch name {
		case "login", "signin", "sign-in", "sign_in", "logon", "log-in":
			return true
		}
	}
	return false
}

// newRedirectError is the error of the redirect of r that the client does not follow;
// target is nil when the Location cannot be read.
func newRedirectError(r *request, resp *response, target *url.URL, withCredential bool, followed int) *RedirectError {
	e := &RedirectError{Method: r.method, Path: pathOf(resp.url), Status: resp.status,
		Target: redactURL(resp.header.Get("Location")), Credentialed: r.carriesCredential(), Followed: followed,
		Setting: resp.route.setting}
	if target != nil {
		e.Target = redactURL(target.String())
		e.SameOrigin = sameHost(target, resp.url)
		e.LoginPage = withCredential && e.SameOrigin && loginPage(target)
	}
	return e
}

// RedirectError is a redirect answer to an API call that the client did not follow.
// It follows none of a request that carries credentials: servers never redirect an API
// call, and a redirect would carry the credential. A request without credentials is
// followed on the same origin only, at most maxRedirects times.
type RedirectError struct {
	Method, Path string
	Status       int
	// Target is the Location, redacted (no user information or query).
	Target string
	// Credentialed says that the request carried a credential (a session, a token,
	// a password or the application's basic credential).
	Credentialed bool
	// SameOrigin says that the target is on the scheme, host and port the request
	// went to.
	SameOrigin bool
	// LoginPage says that the credential was redirected to a login page on the same
	// origin: a credential given with the call, or a shared one redirected there
	// again after a fresh login.
	LoginPage bool
	// Followed counts the redirects followed before this one (maxRedirects: a loop).
	Followed int
	// Setting names the address setting the request was sent under.
	Setting string
}

// Error names the call, where the platform redirected it, and why the client did
// not follow.
func (e *RedirectError) Error() string {
	why := ""
	switch {
	case e.LoginPage:
		why = "the request's credential was taken for no session: a login page on the same host (a second time, when the first was met by a fresh login)"
	case e.Credentialed:
		why = "the provider follows no redirect of a request that carries credentials"
	case !e.SameOrigin:
		why = "another scheme, host or port: the provider follows a redirect of a request without credentials only on the same origin"
	default:
		why = fmt.Sprintf("the request carries no credentials, and the provider followed %d redirects on the same host "+
			"before this one, its limit", e.Followed)
	}
	return fmt.Sprintf("the platform redirected %s %s to %s (HTTP %d): %s", e.Method, e.Path, e.Target, e.Status, why)
}

// problem is the application/problem+json error body.
type problem struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Params  map[string]any `json:"params"`
	Status  flexInt        `json:"status"`
}

// parseAPIError turns a non-2xx answer into an *APIError.
func parseAPIError(method string, resp *response) *APIError {
	e := &APIError{Status: resp.status, Method: method, Path: pathOf(resp.url), Query: resp.url != nil && resp.url.RawQuery != ""}
	contentType := resp.header.Get("Content-Type")
	jsonBody := isJSON(contentType)
	mediaType, _, _ := mime.ParseMediaType(contentType)
	body := bytes.TrimSpace(resp.body)
	e.HTML = !jsonBody && (mediaType == "text/html" || mediaType == "application/xhtml+xml" ||
		(len(body) > 0 && body[0] == '<'))
	e.HTTPSOnly = resp.status == http.StatusBadRequest && resp.url != nil && resp.url.Scheme == "http" &&
		plainHTTPRefusal(body)
	var p problem
	if jsonBody && json.Unmarshal(resp.body, &p) == nil && (p.Code != "" || p.Message != "") {
		e.Code, e.Message, e.Params = p.Code, p.Message, p.Params
		return e
	}
	e.Message = http.StatusText(resp.status)
	if jsonBody {
		// Another JSON error form: RFC 9457's detail or title, or {"error": {"message"}}.
		var other struct {
			Detail, Title string
			Error         struct{ Message string }
		}
		if json.Unmarshal(resp.body, &other) == nil {
			for _, text := range []string{other.Detail, other.Error.Message, other.Title} {
				if text != "" && text != e.Message {
					e.Message += ": " + text
					break
				}
			}
		}
		return e
	}
	if text := strings.TrimSpace(string(resp.body)); text != "" && !jsonBody &&
		!strings.HasPrefix(strings.ToLower(contentType), "text/html") {
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		e.Message += ": " + text
	}
	return e
}

// plainHTTPRefusals are what the servers in front of platforms answer, with a 400, a
// request in plain HTTP on their HTTPS port: Go's net/http, nginx, Apache httpd.
var plainHTTPRefusals = []string{"http request to an https server", "plain http request was sent to https port",
	"speaking plain http to an ssl-enabled server port"}

// plainHTTPRefusal reports whether body is a server's refusal of plain HTTP on its
// HTTPS port.
func plainHTTPRefusal(body []byte) bool {
	text := strings.ToLower(string(body))
	for _, r := range plainHTTPRefusals {
		if strings.Contains(text, r) {
			return true
		}
	}
	return false
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
	return &ForeignAnswerError{Method: r.method, Path: pathOf(resp.url), Status: resp.status, What: what, Setting: resp.route.setting}
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
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "it is not valid JSON (it ends too early)"
	case err != nil:
		return "a value in it cannot be read"
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

// namedValue returns v in the specification's spelling when it is one of names in
// any case, and v as it came otherwise (the reading table's rule 20: where the
// specification names a member's values, an answer may spell them in another case, as
// Jackson writes a Java enum's name, FINISHED). Only a value the specification does
// not name stays unknown. Members are read through it where they are decoded, so that
// every comparison and the state see the specification's spelling.
func namedValue(v string, names ...string) string {
	for _, n := range names {
		if strings.EqualFold(v, n) {
			return n
		}
	}
	return v
}

// booleanValue reads a JSON value that holds a boolean: true or false, or a string
// holding "true" or "false" in any case, surrounding spaces allowed (the reading
// table's rule 22: a settings store of strings, Java Properties or an INI file, gives
// booleans as strings, as the administrator API gives its ports). Anything else is
// absent, so false (rule 1).
func booleanValue(b []byte) bool {
	var s string
	switch b = bytes.TrimSpace(b); {
	case string(b) == "true":
		return true
	case len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil:
		return strings.EqualFold(strings.TrimSpace(s), "true")
	}
	return false
}

// flexBool is a boolean member of an answer read by booleanValue; absent, or a value
// booleanValue does not take, it is false.
type flexBool bool

// UnmarshalJSON reads the boolean in any form booleanValue takes; anything else is
// false.
func (f *flexBool) UnmarshalJSON(b []byte) error {
	*f = flexBool(booleanValue(b))
	return nil
}

// Every number member of every answer is an integer the client reads through
// integerValue (rule "numbers" of the reading table): JSON has one number type, and
// 100, 1E+2, 1.0E2 and 100.0 are the same number (RFC 8259 §6; Java's BigDecimal
// writes 1E+2), and protojson writes 64-bit integers as strings ("100"). Any other
// value (a fraction, a number beyond int64, a boolean, an object, a word) is absent,
// and never makes the whole answer unreadable. Members are declared flexInt (absent
// is 0) or maybeInt (absent is nil), never int: TestEveryIntegerMemberIsFlexible
// walks the answer types for one that is not.

// flexInt is an integer member of an answer whose absence reads as 0.
type flexInt int64

// UnmarshalJSON reads the integer in any form integerValue takes; anything else is 0.
func (n *flexInt) UnmarshalJSON(b []byte) error {
	v, _ := integerValue(b)
	*n = flexInt(v)
	return nil
}

// maybeInt is an optional integer member of an answer: set only when the member
// holds an integer in a form integerValue takes.
type maybeInt struct {
	n   int64
	set bool
}

// UnmarshalJSON reads the integer in any form integerValue takes; anything else
// leaves the member unset. (A null never calls it: the member stays unset.)
func (m *maybeInt) UnmarshalJSON(b []byte) error {
	m.n, m.set = integerValue(b)
	return nil
}

// ptr returns the integer, or nil when the member was absent.
func (m maybeInt) ptr() *int {
	if !m.set {
		return nil
	}
	v := int(m.n)
	return &v
}

// integerValue reads a JSON value that holds an integer: a number in any JSON form
// whose value is an integer in int64's range, or a string holding such a number
// (surrounding spaces allowed). ok is false for anything else.
func integerValue(b []byte) (n int64, ok bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return 0, false
		}
		return parseInteger(strings.TrimSpace(s))
	}
	return parseInteger(string(b))
}

// jsonNumber is the grammar of a JSON number (RFC 8259 §6): integer part, fraction,
// exponent.
var jsonNumber = regexp.MustCompile(`^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$`)

// parseInteger reads the text of a JSON number whose value is an integer in int64's
// range. It works on the digits, never building the number an exponent could make
// huge (1E+999999999 is refused, not computed).
func parseInteger(s string) (int64, bool) {
	m := jsonNumber.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	digits := strings.TrimLeft(m[2]+m[3], "0")
	if digits == "" {
		return 0, true // 0, -0.0, 0E+7
	}
	// The value is digits × 10^shift.
	shift := -len(m[3])
	if m[4] != "" {
		e, err := strconv.Atoi(m[4])
		if err != nil || e > 100 || e < -100-len(digits) {
			return 0, false // beyond int64 either way, or below 1
		}
		shift += e
	}
	trimmed := strings.TrimRight(digits, "0")
	shift += len(digits) - len(trimmed)
	digits = trimmed
	if shift < 0 || len(digits)+shift > 19 {
		return 0, false // a fraction, or more than int64's 19 digits
	}
	v, err := strconv.ParseInt(m[1]+digits+strings.Repeat("0", shift), 10, 64)
	return v, err == nil
}

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
