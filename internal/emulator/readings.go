package emulator

// Section V of the contract: the other legal readings of the specification, each
// behind a switch (Faults.Readings), and the platform's clock (Faults.ClockOffsetSeconds).
// The handlers apply the readings that change what a call does (where parameters
// are read, the count's method, the login and delete answers, the list envelope, the
// token documents); answerWriter applies those that only change how an answer is
// written (error bodies, HAL links, media types, timestamps and the clock).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Readings are the other legal readings of the specification (contract §V), each off
// by default.
type Readings struct {
	// QueryParamsOnly (V1): GET /scores and the count read score, offset and limit only
	// from the query string; a JSON body is ignored.
	QueryParamsOnly bool `json:"queryParamsOnly"`
	// BodyParamsOnly (V2): those two calls read them only from a JSON body, also on
	// GET; the query string is ignored.
	BodyParamsOnly bool `json:"bodyParamsOnly"`
	// CountGetOnly (V3): POST /scores/count answers 405 with Allow: GET; GET counts.
	CountGetOnly bool `json:"countGetOnly"`
	// BareLoginToken (V5): POST /login answers 200 text/plain, the token as the body.
	BareLoginToken bool `json:"bareLoginToken"`
	// JSONStringLoginToken (V5): POST /login answers the token as a JSON string.
	JSONStringLoginToken bool `json:"jsonStringLoginToken"`
	// DeleteAnswersScore (V6): DELETE /scores/{id} answers 200 {"score": …} instead of 204.
	DeleteAnswersScore bool `json:"deleteAnswersScore"`
	// CTMSErrors (V7): problem bodies are application/vnd.avid.problem+json, code
	// avid.<namespace>/CTMS/<NAME>, params.parameterName instead of params.field.
	CTMSErrors bool `json:"ctmsErrors"`
	// TextErrors (V7): 4xx error bodies are text/plain (the message), 5xx ones an HTML page.
	TextErrors bool `json:"textErrors"`
	// SingleLinks (V8): a HAL link relation holding one link is a single object.
	SingleLinks bool `json:"singleLinks"`
	// ListEnvelope (V8): GET /scores answers total, offset, limit and _links beside scores.
	ListEnvelope bool `json:"listEnvelope"`
	// LowercaseBearer (V8): the password grant answers token_type "bearer".
	LowercaseBearer bool `json:"lowercaseBearer"`
	// CharsetMediaTypes (V8): every JSON media type carries ";charset=UTF-8".
	CharsetMediaTypes bool `json:"charsetMediaTypes"`
	// TimeOffsets (V8): timestamps carry a +02:00 offset and no fraction of a second.
	TimeOffsets bool `json:"timeOffsets"`
	// IAMTokenExpiry (V8): the token information and extension answers give the expiry
	// only as {"iamToken": {"expiresAt": …}}.
	IAMTokenExpiry bool `json:"iamTokenExpiry"`
	// NewestFirst (V9): GET /scores lists the newest scores first (createdAt, then id,
	// descending), so that every publish moves every score already listed forward.
	NewestFirst bool `json:"newestFirst"`
	// ForbiddenWhenExpired: an expired, unknown or invalidated administrator session or
	// platform token is answered 403 instead of 401 (the specification shows neither).
	ForbiddenWhenExpired bool `json:"forbiddenWhenExpired"`
	// BareCount: the count answers the number alone (`5`) instead of {"count": 5}.
	BareCount bool `json:"bareCount"`
	// TextHealth: GET /core/health answers 200 text/plain "OK" (the specification
	// calls the endpoint unreliable and shows no body of its own).
	TextHealth bool `json:"textHealth"`
	// MinimalPublishAnswer: POST /scores answers only the new score's id
	// ({"score": {"id": …}}): the response bodies of the score endpoints are not shown.
	MinimalPublishAnswer bool `json:"minimalPublishAnswer"`
	// BareBodies: the score endpoints answer their object without its wrapper (the
	// score itself instead of {"score": …}, the view itself, the list as a bare array).
	BareBodies bool `json:"bareBodies"`
	// EmptySettingsAnswer: PUT /externalauth answers 204 with no body ("Response
	// bodies of the administrator endpoints: not shown").
	EmptySettingsAnswer bool `json:"emptySettingsAnswer"`
	// AllServerSlots: the settings answers list all eight server slots, the unused ones
	// as "serverN": "", "portN": "", "enabledN": false (the fields GET returns are not
	// shown).
	AllServerSlots bool `json:"allServerSlots"`
	// OmitEmptyAdminMembers: the administrator API's answers leave out every member
	// whose value is false, zero or empty (Go's omitempty, protojson without
	// EmitDefaultValues): a disabled server has no enabledN.
	OmitEmptyAdminMembers bool `json:"omitEmptyAdminMembers"`
	// SettingsExtraFields: the settings carry members the contract does not name
	// (searchBase, connectTimeoutSeconds): GET answers them, and a PUT replaces them with
	// the unknown members it sends, removing those it leaves out.
	SettingsExtraFields bool `json:"settingsExtraFields"`
	// RetryAfterDate: Retry-After is an HTTP date on the platform's clock (the same
	// instant as the answer's Date plus the wait) instead of seconds; RFC 9110 §10.2.3
	// allows either form.
	RetryAfterDate bool `json:"retryAfterDate"`
	// OmitEmptyScoreMembers: the score API's answers leave out, at every depth, every
	// member whose value is false, zero, empty or an empty list (Go's omitempty,
	// protojson without EmitDefaultValues): an empty page is {}, a count of 0 is {}.
	OmitEmptyScoreMembers bool `json:"omitEmptyScoreMembers"`
	// SpaceTimestamps: timestamps have a space instead of T between date and time and
	// microseconds, 2026-11-23 22:45:52.123000+00:00 (the RFC 3339 §5.6 note allows
	// the space; Python's str(datetime) writes this form).
	SpaceTimestamps bool `json:"spaceTimestamps"`
	// TemplatedLinks: every HAL link but self and curies is an RFC 6570 template
	// with an optional query expression ({?fields}, "templated": true), as contract §0
	// allows for every link: the token flow's links and command:cancel.
	TemplatedLinks bool `json:"templatedLinks"`
	// SeeOtherWrites: the token extension answers 303 See Other to the token
	// information and the token removal 303 to /auth, on the same host, without a body
	// (RFC 9110 §15.4.4; contract §0 as amended).
	SeeOtherWrites bool `json:"seeOtherWrites"`
	// DeleteAccepted: DELETE /scores/{id} answers 202 Accepted (RFC 9110 §15.3.3: not
	// yet enacted) and removes the score 1.5 s later; until then it stays readable and
	// its alias taken.
	DeleteAccepted bool `json:"deleteAccepted"`
	// RefuseGetBody: a CDN in front of the platform refuses any GET that carries a
	// body with 403 and an HTML page of its own (AWS CloudFront documents it).
	RefuseGetBody bool `json:"refuseGetBody"`
	// ExponentIntegers: every integer of every JSON answer is written with an
	// exponent, as Java's BigDecimal writes one ending in zeros (100 as 1E+2, 250 as
	// 2.5E+2) and others with a fraction (389 as 389.0E0): JSON has one number type,
	// and these are the same numbers (RFC 8259 §6).
	ExponentIntegers bool `json:"exponentIntegers"`
	// ProblemRefusals: a refused password grant (400 invalid_grant, 401 invalid_client)
	// and a refused administrator login (401) answer in RFC 9457's
	// application/problem+json (type, title, status, detail), not in RFC 6749's form
	// nor the platform's problem: an identity service behind a new gateway.
	ProblemRefusals bool `json:"problemRefusals"`
	// TextRefusals: those refusals answer text/plain, "400 Bad Request: unknown user or
	// wrong password", naming no OAuth error.
	TextRefusals bool `json:"textRefusals"`
	// NestedRefusals: those refusals answer {"error": {"code": …, "message": …}}.
	NestedRefusals bool `json:"nestedRefusals"`
	// TopLevelScoreID: every score answer (publish, get, list, delete) carries the
	// alias as a top-level scoreId, beside id and status, as the specification's score
	// table lists it, and not under publisher (where the contract puts it).
	TopLevelScoreID bool `json:"topLevelScoreId"`
	// AuthRootSlash: GET /auth answers 301 to /auth/, where the discovery document is
	// served, as nginx does for `location /auth/ { proxy_pass …; }` asked for without
	// its slash, and a servlet container for its context root. A request that carries
	// no credential may be followed on the same origin.
	AuthRootSlash bool `json:"authRootSlash"`
	// LoginRedirects: the administrator API answers a call with a missing, unknown,
	// expired or invalidated session by 302 to its login page (Location
	// <admin_url>/login, no body) instead of 401, as Spring Security's form login,
	// Django's login_required and ASP.NET's LoginPath do.
	LoginRedirects bool `json:"loginRedirects"`
	// BracketQueryObjects: GET /scores and the count read an object parameter in the
	// query string only in bracket form (score[status]=idle, nested
	// score[publisher][scoreId]=x: OpenAPI's deepObject style, Express's qs, Spring's
	// nested binding) and answer the JSON-text form (score={…}) with 400 "request/query/
	// score must be object". A JSON body is read as in the contract.
	BracketQueryObjects bool `json:"bracketQueryObjects"`
	// NormalizedScoreURL: the platform keeps a score's scoreUrl in RFC 3986 normal form
	// and answers it so (scheme and host in lower case, the default port dropped, dot
	// segments removed, percent-encodings' hex digits in upper case), as .NET's
	// Uri.AbsoluteUri, WHATWG URL.href and pydantic's AnyUrl write it; a scoreUrl
	// criterion is read into the same form before it is matched.
	NormalizedScoreURL bool `json:"normalizedScoreUrl"`
	// SummaryListings: GET /scores lists each score as a summary, without options and
	// renderings (GitHub's summary representations, Spring Data REST's excerpts, a
	// search index's _source filtering); GET /scores/{id} answers the whole score.
	SummaryListings bool `json:"summaryListings"`
	// LoginTokenHeader (found by the hunt of issue 51): POST /login answers 200 with
	// no body and the session token in the response header `token`, the header the
	// later calls carry it in, as OpenStack Swift's v1 auth answers X-Auth-Token.
	LoginTokenHeader bool `json:"loginTokenHeader"`
	// PublishCreated (hunt of issue 51): POST /scores answers 201 Created with the new
	// score's address in Location and no body, as JAX-RS's Response.created(uri) and
	// Rails's `head :created, location:` do ("Response bodies of the score endpoints:
	// not shown").
	PublishCreated bool `json:"publishCreated"`
	// UpperCaseLifecycle (hunt of issue 51): a command's lifecycle is written in upper
	// case (RUNNING, FINISHED), as Jackson writes a Java enum's name.
	UpperCaseLifecycle bool `json:"upperCaseLifecycle"`
	// EpochTimestamps (hunt of issue 51): every timestamp is a JSON number of
	// milliseconds since the Unix epoch, as Jackson writes a date by default
	// (WRITE_DATES_AS_TIMESTAMPS): the specification types them "date/time" only.
	EpochTimestamps bool `json:"epochTimestamps"`
	// StringAdminBooleans (hunt of issue 51): the administrator API's answers give
	// every boolean as the string "true" or "false", as it gives ports as strings
	// (a settings store of strings: Java Properties, an INI file).
	StringAdminBooleans bool `json:"stringAdminBooleans"`
	// GoneScores (issue 60): the platform keeps a tombstone of every deleted score and
	// answers a read or a delete of it 410 Gone (publishing/GONE) instead of 404, as
	// RFC 9110 §15.5.11 describes and GitHub's API answers a deleted issue; a score that
	// never was still answers 404.
	GoneScores bool `json:"goneScores"`
	// CanonicalSettings (issue 60): the administrator API gives the settings back in
	// its own spelling of what it stored: server host names in lower case (DNS names
	// compare without case, RFC 4343), IP addresses in RFC 5952 form, the domain name in
	// upper case (NetBIOS and Active Directory domain names compare without case), as
	// Windows writes them.
	CanonicalSettings bool `json:"canonicalSettings"`
	// OmitDefaultAdminMembers (issue 60): the settings answers leave out every member at
	// its contract default (Jackson's NON_DEFAULT): an enabledN that is true (§A: the
	// default when serverN is given) and an externalAuthenticationEnabled that is false
	// (the initial state); a disabled server's enabledN is written.
	OmitDefaultAdminMembers bool `json:"omitDefaultAdminMembers"`
	// UnreportedSwitch (issue 60): the settings answers never carry
	// externalAuthenticationEnabled (a write-only member: "Fields returned by GET … not
	// shown"), whatever it holds; the platform still stores and applies it.
	UnreportedSwitch bool `json:"unreportedSwitch"`
	// ViewWithoutID (issue 60): a view's answer carries no id: its viewerUrl is the
	// view's only name ("Response bodies of the score endpoints: not shown").
	ViewWithoutID bool `json:"viewWithoutId"`
	// SynchronousRendering (issue 63): the platform renders a score as it publishes it:
	// the publish answers the score at its final status (idle with its renderings, or
	// error), and no score is ever pending ("status": "pending" is the specification's
	// example of a status, not a promise that every publish answers it).
	SynchronousRendering bool `json:"synchronousRendering"`
	// SessionTokenMember (second hunt): POST /login answers 200 with the session
	// token in a member named sessionToken, beside status SUCCESS, expiresAt and the
	// user embedded, as Okta's Authentication API (POST /api/v1/authn) answers ("A
	// session token"; "Fields of the login response: not shown").
	SessionTokenMember bool `json:"sessionTokenMember"`
	// UnconfiguredSettings (second hunt): GET /externalauth answers 404
	// admin/NOT_FOUND until settings were first stored by a PUT (after a reset too), as
	// GitHub's API answers a branch's protection or a repository's Pages settings that
	// were never set ("Fields returned by GET … not shown"; "Response bodies of the
	// administrator endpoints: not shown").
	UnconfiguredSettings bool `json:"unconfiguredSettings"`
	// RelativeLinks (second hunt): every HAL link's href is an absolute-path
	// reference (/auth/identity-providers), without scheme and host, as the HAL
	// draft's own examples write them ("href": "/orders") and HAL libraries that take
	// the application's paths (Ruby's Roar, Node's halson) serve them; RFC 3986 §5
	// resolves them against the address of the answer ("The hrefs are taken from the
	// responses and are not fixed paths").
	RelativeLinks bool `json:"relativeLinks"`
	// MuxStatuses (second hunt): a score's status after pending is named as Mux
	// Video names an asset's: preparing while it renders, then ready or errored (the
	// contract's rendering, idle, error); a status criterion is read in the same
	// names ("The status field exists and pending occurs. Other states and all
	// transitions: not shown").
	MuxStatuses bool `json:"muxStatuses"`
	// AliasTakenUnprocessable (second hunt): a publish whose scoreId is taken
	// answers 422 Unprocessable Content, code publishing/ALREADY_EXISTS with
	// params.field scoreId, instead of 409, as a Rails uniqueness validation and
	// GitHub's API ("already_exists") answer a duplicate ("Error status codes and
	// bodies for the score endpoints … not shown").
	AliasTakenUnprocessable bool `json:"aliasTakenUnprocessable"`
}

// readingFields are the Readings' fields by JSON name, in declaration order.
func readingFields() ([]string, map[string]int) {
	t := reflect.TypeFor[Readings]()
	names, index := make([]string, t.NumField()), map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[i], index[name] = name, i
	}
	return names, index
}

// ReadingNames lists the names of every reading (the JSON names of Readings).
func ReadingNames() []string {
	names, _ := readingFields()
	return names
}

// Names lists the names of the readings that are on.
func (r Readings) Names() []string {
	names, _ := readingFields()
	v := reflect.ValueOf(r)
	var on []string
	for i, name := range names {
		if v.Field(i).Bool() {
			on = append(on, name)
		}
	}
	return on
}

// Set switches on the reading of that name.
func (r *Readings) Set(name string) error {
	names, index := readingFields()
	i, ok := index[name]
	if !ok {
		return fmt.Errorf("unknown reading %q; the readings are %s", name, strings.Join(names, ", "))
	}
	reflect.ValueOf(r).Elem().Field(i).SetBool(true)
	return nil
}

// rewritesAnswers reports whether answerWriter has anything to change.
func (r Readings) rewritesAnswers() bool {
	return r.CTMSErrors || r.TextErrors || r.SingleLinks || r.CharsetMediaTypes || r.TimeOffsets || r.SpaceTimestamps ||
		r.TemplatedLinks || r.ExponentIntegers || r.EpochTimestamps || r.RelativeLinks
}

// readings returns the readings in force.
func (e *Emulator) readings() Readings { return e.faults.get().Readings }

// answerWriter holds a platform answer back and writes it, once the handler is done,
// as the readings and the platform's clock say. The emulator keeps every time on this
// machine's clock inside (so every expiry is judged consistently) and shifts each
// timestamp it writes by the platform clock's offset at that moment: a timestamp
// taken before the clock stepped keeps the offset of its time.
type answerWriter struct {
	w        http.ResponseWriter
	readings Readings
	offsetAt func(time.Time) time.Duration
	status   int
	body     bytes.Buffer
	written  bool
	// omit are member names left out of a success answer (Faults.OmitMembers); record
	// receives a success answer's member names (Faults.RecordMembers).
	omit   []string
	record func(names []string)
}

func newAnswerWriter(w http.ResponseWriter, readings Readings, offsetAt func(time.Time) time.Duration) *answerWriter {
	return &answerWriter{w: w, readings: readings, offsetAt: offsetAt}
}

func (a *answerWriter) Header() http.Header { return a.w.Header() }

func (a *answerWriter) WriteHeader(status int) {
	if !a.written {
		a.status, a.written = status, true
	}
}

func (a *answerWriter) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.body.Write(b)
}

// timestampPattern matches the timestamps formatTime writes, as JSON strings.
var timestampPattern = regexp.MustCompile(`"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"`)

// flush writes the answer held back, rewritten.
func (a *answerWriter) flush() {
	if !a.written {
		return
	}
	h := a.w.Header()
	body := a.body.Bytes()
	mediaType, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if isJSONMediaType(mediaType) {
		if a.status < 300 && (a.record != nil || len(a.omit) > 0) {
			body = a.members(body)
		}
		body = a.rewriteJSON(body)
		switch {
		case a.status >= 400 && a.readings.TextErrors:
			body = textError(h, a.status, body)
		case a.status >= 400 && a.readings.CTMSErrors && mediaType == "application/problem+json":
			body = ctmsProblem(body)
			h.Set("Content-Type", "application/vnd.avid.problem+json")
		}
		mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
		if a.readings.ExponentIntegers && isJSONMediaType(mt) {
			// Last, since the rewrites above decode and encode the body again.
			body = exponentIntegers(body)
		}
		if a.readings.CharsetMediaTypes && isJSONMediaType(mt) {
			h.Set("Content-Type", mt+";charset=UTF-8")
		}
	}
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	a.w.WriteHeader(a.status)
	_, _ = a.w.Write(body)
}

// rewriteJSON shifts and reformats the timestamps and folds single HAL links.
func (a *answerWriter) rewriteJSON(body []byte) []byte {
	if a.offsetAt != nil || a.readings.TimeOffsets || a.readings.SpaceTimestamps || a.readings.EpochTimestamps {
		body = timestampPattern.ReplaceAllFunc(body, func(m []byte) []byte {
			t, err := time.Parse(`"`+timeFormat+`"`, string(m))
			if err != nil {
				return m
			}
			if a.offsetAt != nil {
				t = t.Add(a.offsetAt(t))
			}
			switch {
			case a.readings.EpochTimestamps:
				return []byte(strconv.FormatInt(t.UnixMilli(), 10))
			case a.readings.TimeOffsets && a.readings.SpaceTimestamps:
				return []byte(`"` + t.In(time.FixedZone("", 2*3600)).Format("2006-01-02 15:04:05-07:00") + `"`)
			case a.readings.TimeOffsets:
				return []byte(`"` + t.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05-07:00") + `"`)
			case a.readings.SpaceTimestamps:
				return []byte(`"` + t.UTC().Format("2006-01-02 15:04:05.000000-07:00") + `"`)
			}
			return []byte(`"` + formatTime(t) + `"`)
		})
	}
	if a.readings.TemplatedLinks && bytes.Contains(body, []byte(`"_links"`)) {
		var doc any
		if json.Unmarshal(body, &doc) == nil {
			if out, err := json.Marshal(templatedLinks(doc)); err == nil {
				body = out
			}
		}
	}
	if a.readings.RelativeLinks && bytes.Contains(body, []byte(`"_links"`)) {
		var doc any
		if json.Unmarshal(body, &doc) == nil {
			if out, err := json.Marshal(relativeLinks(doc)); err == nil {
				body = out
			}
		}
	}
	if a.readings.SingleLinks && bytes.Contains(body, []byte(`"_links"`)) {
		var doc any
		if json.Unmarshal(body, &doc) == nil {
			if out, err := json.Marshal(singleLinks(doc)); err == nil {
				body = out
			}
		}
	}
	return body
}

// exponentIntegers writes every integer of a JSON text (outside its strings) with an
// exponent: trailing zeros as BigDecimal's scientific notation (1E+2, 2.5E+2), any
// other integer with a fraction (389.0E0, -7.0E0, 0.0E0). Other numbers stay.
func exponentIntegers(body []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == '"':
			j := i + 1
			for j < len(body) && body[j] != '"' {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(body))
			out.Write(body[i:j])
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(body) && bytes.IndexByte([]byte("0123456789.eE+-"), body[j]) >= 0 {
				j++
			}
			out.WriteString(exponentForm(string(body[i:j])))
			i = j
		default:
			out.WriteByte(c)
			i++
		}
	}
	return out.Bytes()
}

// exponentForm is an integer's text with an exponent; any other text as it is.
func exponentForm(n string) string {
	if _, err := strconv.ParseInt(n, 10, 64); err != nil {
		return n
	}
	sign, digits := "", n
	if digits[0] == '-' {
		sign, digits = "-", digits[1:]
	}
	trimmed := strings.TrimRight(digits, "0")
	if zeros := len(digits) - len(trimmed); zeros > 0 && trimmed != "" {
		// BigDecimal: one digit before the point, the exponent signed.
		mantissa := trimmed[:1]
		if len(trimmed) > 1 {
			mantissa += "." + trimmed[1:]
		}
		return fmt.Sprintf("%s%sE+%d", sign, mantissa, len(digits)-1)
	}
	return sign + digits + ".0E0"
}

// singleLinks turns every HAL link relation of one link into a single object.
func singleLinks(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			v[k] = singleLinks(inner)
		}
		if links, ok := v["_links"].(map[string]any); ok {
			for rel, l := range links {
				if arr, ok := l.([]any); ok && len(arr) == 1 {
					links[rel] = arr[0]
				}
			}
		}
	case []any:
		for i := range v {
			v[i] = singleLinks(v[i])
		}
	}
	return v
}

// templatedLinks turns the href of every HAL link but self and curies into a template
// with an optional query expression, {?fields}, marked "templated": true.
func templatedLinks(v any) any {
	template := func(l any) {
		if m, ok := l.(map[string]any); ok {
			if href, ok := m["href"].(string); ok && m["templated"] != true {
				m["href"], m["templated"] = href+"{?fields}", true
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			v[k] = templatedLinks(inner)
		}
		if links, ok := v["_links"].(map[string]any); ok {
			for rel, l := range links {
				if rel == "self" || rel == "curies" {
					continue
				}
				if arr, ok := l.([]any); ok {
					for _, one := range arr {
						template(one)
					}
				} else {
					template(l)
				}
			}
		}
	case []any:
		for i := range v {
			v[i] = templatedLinks(v[i])
		}
	}
	return v
}

// relativeLinks turns the href of every HAL link into an absolute-path reference:
// scheme and host left out, the path, query and fragment (and any template) kept.
func relativeLinks(v any) any {
	relative := func(l any) {
		m, ok := l.(map[string]any)
		if !ok {
			return
		}
		href, ok := m["href"].(string)
		if !ok {
			return
		}
		_, rest, found := strings.Cut(href, "://")
		if !found {
			return
		}
		if i := strings.IndexAny(rest, "/?#{"); i >= 0 {
			rest = rest[i:]
		} else {
			rest = "/"
		}
		if !strings.HasPrefix(rest, "/") {
			rest = "/" + rest
		}
		m["href"] = rest
	}
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			v[k] = relativeLinks(inner)
		}
		if links, ok := v["_links"].(map[string]any); ok {
			for _, l := range links {
				if arr, ok := l.([]any); ok {
					for _, one := range arr {
						relative(one)
					}
				} else {
					relative(l)
				}
			}
		}
	case []any:
		for i := range v {
			v[i] = relativeLinks(v[i])
		}
	}
	return v
}

// ctmsProblem rewrites a problem body in the CTMS form: code avid.<ns>/CTMS/<NAME>,
// params.parameterName.
func ctmsProblem(body []byte) []byte {
	var p map[string]any
	if json.Unmarshal(body, &p) != nil {
		return body
	}
	if code, ok := p["code"].(string); ok {
		if ns, name, found := strings.Cut(code, "/"); found {
			p["code"] = "avid." + ns + "/CTMS/" + name
		}
	}
	if params, ok := p["params"].(map[string]any); ok {
		if field, ok := params["field"]; ok {
			params["parameterName"] = field
			delete(params, "field")
		}
	}
	out, err := json.Marshal(p)
	if err != nil {
		return body
	}
	return out
}

// textError rewrites an error body as text (4xx: the message) or as an HTML page
// (5xx), the way a server without problem documents answers.
func textError(h http.Header, status int, body []byte) []byte {
	var p struct {
		Message string `json:"message"`
		Error   string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &p)
	msg := p.Message
	if msg == "" {
		msg = p.Error
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	if status >= 500 {
		h.Set("Content-Type", "text/html; charset=utf-8")
		return []byte(fmt.Sprintf("<!DOCTYPE html><html><head><title>%d %s</title></head><body><h1>%s</h1><p>%s</p></body></html>",
			status, http.StatusText(status), http.StatusText(status), html.EscapeString(msg)))
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	return []byte(msg)
}

func isJSONMediaType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}
