package emulator

// Section G of the contract: the emulator-only control surface under /_emulator/.

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults are injected into platform requests (never into the control surface).
// The zero value injects nothing. A request first passes the gateway in front of the
// platform (RequireHeader; ClientCACertPEM acts earlier, in the TLS handshake), is
// then checked against the rate limit, then may fail before effect (FailRate), then
// is served, and then may lose its answer (DropRate).
type Faults struct {
	// FailRate is the share (0 to 1) of requests that fail before taking effect.
	FailRate float64 `json:"failRate"`
	// Status is the status of a failed request: 429, 500, 502, 503 or 504;
	// default (0) 503. The body is a problem with the matching NAME, or an OAuth
	// error on the token endpoint.
	Status int `json:"status"`
	// RetryAfter, in seconds, is sent as Retry-After on failed requests when > 0
	// (a 429 always carries one, at least 1).
	RetryAfter int `json:"retryAfter"`
	// LatencyMs delays every request.
	LatencyMs int `json:"latencyMs"`
	// RateLimitPerSecond answers 429 with Retry-After once more requests than this
	// arrive within one second; 0 means no limit.
	RateLimitPerSecond int `json:"rateLimitPerSecond"`
	// RateLimitWithoutRetryAfter: the rate limit's 429 carries no Retry-After, which
	// RFC 6585 §4 makes optional; the client must find the pace by itself.
	RateLimitWithoutRetryAfter bool `json:"rateLimitWithoutRetryAfter,omitempty"`
	// RateLimitWindowSeconds is the rate limit's window: RateLimitPerSecond requests
	// are admitted per window of this many seconds (0 means 1: a per-second limit).
	// A 429 with Retry-After asks for the whole window.
	RateLimitWindowSeconds int `json:"rateLimitWindowSeconds,omitempty"`
	// DropRate is the share (0 to 1) of requests that take effect and then get no
	// answer: the handler runs to the end, its response is discarded and the
	// connection is closed (HTTP/2: the stream is reset). The client sees a
	// connection error after sending, the case of a proxy or network failing
	// after the platform acted, which is why a non-idempotent call cannot simply
	// be repeated.
	DropRate float64 `json:"dropRate"`
	// DropRoutes limits DropRate to these routes, named as in Stats.Requests
	// ("POST /api/v1/apis/media.publishing;version=2;realm=global/scores");
	// empty means every platform request.
	DropRoutes []string `json:"dropRoutes,omitempty"`
	// Readings switch on other legal readings of the specification (contract §V).
	Readings Readings `json:"readings,omitzero"`
	// ClockOffsetSeconds shifts the platform's clock: every timestamp it writes and the
	// Date header of every answer are this far from this machine's clock (negative:
	// the platform is behind). Expiries stay consistent with the timestamps written.
	ClockOffsetSeconds int `json:"clockOffsetSeconds,omitempty"`
	// RequireHeader puts a gateway in front of the platform that demands this access
	// header on every platform request (the control surface excepted), before
	// anything else happens to the request: without it the gateway answers 401, with
	// another value 403, each with an HTML page of its own (gateway.go).
	RequireHeader *HeaderRequirement `json:"requireHeader,omitempty"`
	// ClientCACertPEM holds one or more CA certificates (PEM): while it is set, a
	// listener serving TLS through Emulator.TLSConfig requires, in the handshake, a
	// client certificate that verifies against them. Set through SetFaults, PEM that
	// does not parse refuses every client certificate.
	ClientCACertPEM string `json:"clientCaCertPem,omitempty"`
	// LaggingReadsMs makes the score API's reads lag its writes, as a replica does
	// after a failover: for this long after a score's creation, GET /scores/{id}
	// answers 404 and the list and the count leave the score out, while writes (a
	// publish's alias check, a delete) see it at once (scores.go).
	LaggingReadsMs int `json:"laggingReadsMs,omitempty"`
	// IndexRefreshMs serves the list and the count from a search index refreshed every
	// this many milliseconds (on the emulator's clock, at whole multiples of it), as a
	// platform whose listing is a search index does: a score created since the index's
	// last refresh is left out of both, while GET /scores/{id} (by UUID or alias) and
	// every write see it at once (scores.go).
	IndexRefreshMs int `json:"indexRefreshMs,omitempty"`
	// OmitMembers are member names that every JSON success answer of the platform
	// leaves out, at any depth (a platform that never reports them): for the test that
	// omits each member of every answer in turn (members.go).
	OmitMembers []string `json:"omitMembers,omitempty"`
	// RecordMembers records the names of the members of every JSON success answer, by
	// route (Emulator.AnswerMembers), for the same test.
	RecordMembers bool `json:"recordMembers,omitempty"`
}

// maxClockOffset bounds ClockOffsetSeconds: ten years either way.
const maxClockOffset = 10 * 366 * 24 * 3600

// validate returns the first invalid field and a message, or "".
func (f Faults) validate() (field, msg string) {
	switch {
	case f.FailRate < 0 || f.FailRate > 1:
		return "failRate", "failRate must be between 0 and 1"
	case f.Status != 0 && faultStatuses[f.Status].name == "":
		return "status", "status must be one of 429, 500, 502, 503, 504 (0 means 503)"
	case f.RetryAfter < 0:
		return "retryAfter", "retryAfter must not be negative"
	case f.LatencyMs < 0:
		return "latencyMs", "latencyMs must not be negative"
	case f.RateLimitPerSecond < 0:
		return "rateLimitPerSecond", "rateLimitPerSecond must not be negative"
	case f.RateLimitWindowSeconds < 0 || f.RateLimitWindowSeconds > 3600:
		return "rateLimitWindowSeconds", "rateLimitWindowSeconds must be between 0 and 3600"
	case f.DropRate < 0 || f.DropRate > 1:
		return "dropRate", "dropRate must be between 0 and 1"
	case f.ClockOffsetSeconds < -maxClockOffset || f.ClockOffsetSeconds > maxClockOffset:
		return "clockOffsetSeconds", "clockOffsetSeconds must be within ten years either way"
	case f.LaggingReadsMs < 0:
		return "laggingReadsMs", "laggingReadsMs must not be negative"
	case f.IndexRefreshMs < 0:
		return "indexRefreshMs", "indexRefreshMs must not be negative"
	}
	if f.RequireHeader != nil {
		if field, msg := f.RequireHeader.validate(); field != "" {
			return field, msg
		}
	}
	if f.ClientCACertPEM != "" {
		if _, err := parseClientCAs(f.ClientCACertPEM); err != nil {
			return "clientCaCertPem", "clientCaCertPem must be one or more PEM CA certificates: " + err.Error()
		}
	}
	return "", ""
}

type faultState struct {
	mu     sync.Mutex
	faults Faults
	// caPool holds the certificates of faults.ClientCACertPEM, read once when set.
	caPool      *x509.CertPool
	window      time.Time
	windowCount int
	// now is the clock the rate limit counts its windows on (Options.RateLimitClock).
	now func() time.Time
	// limited counts the requests the rate limit refused (Stats.RateLimited).
	limited int
	// steps are the changes of faults.ClockOffsetSeconds, oldest first: the platform's
	// clock stepped to offset at the moment at (this machine's clock).
	steps []clockStep
}

// clockStep is a step of the platform's clock: from at on, it is offset away from
// this machine's.
type clockStep struct {
	at     time.Time
	offset time.Duration
}

// start puts the faults in their start state: faults, in force from the beginning.
func (f *faultState) start(faults Faults) {
	f.mu.Lock()
	f.faults = Faults{}
	f.caPool = nil
	f.steps = nil
	f.window = time.Time{}
	f.windowCount = 0
	f.limited = 0
	f.mu.Unlock()
	f.setFrom(time.Time{}, faults)
}

// set sets faults from now on. The platform writes its timestamps truncated to the
// millisecond, so a step of its clock is dated on a millisecond's boundary: the next
// one, and set returns once it has passed. A timestamp taken before set keeps the old
// offset, and one taken after set returns has the new one.
func (f *faultState) set(faults Faults) {
	at := time.Now().Truncate(time.Millisecond).Add(time.Millisecond)
	if f.setFrom(at, faults) {
		time.Sleep(time.Until(at))
	}
}

// setFrom sets faults; a change of the clock's offset is a step at the moment at, and
// stepped reports one.
func (f *faultState) setFrom(at time.Time, faults Faults) (stepped bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if faults.Status == 0 {
		faults.Status = http.StatusServiceUnavailable
	}
	faults = faults.clone()
	if faults.ClockOffsetSeconds != f.faults.ClockOffsetSeconds {
		f.steps = append(f.steps, clockStep{at: at, offset: time.Duration(faults.ClockOffsetSeconds) * time.Second})
		stepped = true
	}
	f.caPool = nil
	if faults.ClientCACertPEM != "" {
		var err error
		if f.caPool, err = parseClientCAs(faults.ClientCACertPEM); err != nil {
			// Not validated (SetFaults): a gateway that cannot read its CAs admits nobody.
			f.caPool = x509.NewCertPool()
		}
	}
	f.faults = faults
	return stepped
}

func (f *faultState) get() Faults {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.faults.clone()
}

// rateLimited returns how many requests the rate limit refused.
func (f *faultState) rateLimited() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.limited
}

// clock is the platform's clock as it stands: the offset of each moment is the one in
// force when the moment was reached, so a timestamp taken before a step keeps the
// offset it was taken with, and a moment not reached yet (an expiry) has today's.
// shifted is false while the platform's clock has never been away from this machine's.
func (f *faultState) clock() (offsetAt func(time.Time) time.Duration, shifted bool) {
	f.mu.Lock()
	steps := slices.Clone(f.steps)
	f.mu.Unlock()
	return func(t time.Time) time.Duration {
		for i := len(steps) - 1; i >= 0; i-- {
			if !t.Before(steps[i].at) {
				return steps[i].offset
			}
		}
		return 0
	}, len(steps) > 0
}

// clientCAs returns the CAs a client certificate must verify against, or nil when
// no client certificate is required.
func (f *faultState) clientCAs() *x509.CertPool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.caPool
}

// clone returns a copy of f that shares nothing with it.
func (f Faults) clone() Faults {
	f.DropRoutes = slices.Clone(f.DropRoutes)
	if f.RequireHeader != nil {
		h := *f.RequireHeader
		f.RequireHeader = &h
	}
	return f
}

// decide returns the status a request on route must fail with (0: serve it),
// the Retry-After seconds to send, and whether a served request loses its answer.
func (f *faultState) decide(route string) (faults Faults, status, retryAfter int, drop bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	faults = f.faults
	if limit := faults.RateLimitPerSecond; limit > 0 {
		now := time.Now()
		if f.now != nil {
			now = f.now()
		}
		window := max(faults.RateLimitWindowSeconds, 1)
		if now.Sub(f.window) >= time.Duration(window)*time.Second {
			f.window = now
			f.windowCount = 0
		}
		f.windowCount++
		if f.windowCount > limit {
			f.limited++
			if faults.RateLimitWithoutRetryAfter {
				return faults, http.StatusTooManyRequests, -1, false
			}
			// Retrying after the window's length always meets a new one.
			return faults, http.StatusTooManyRequests, window, false
		}
	}
	if faults.FailRate > 0 && rand.Float64() < faults.FailRate {
		status = faults.Status
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		return faults, status, faults.RetryAfter, false
	}
	drop = faults.DropRate > 0 && (len(faults.DropRoutes) == 0 || slices.Contains(faults.DropRoutes, route)) &&
		rand.Float64() < faults.DropRate
	return faults, 0, 0, drop
}

// apply delays a request on route and fails it when the faults say so. It reports
// whether the request should be served, and whether its answer must be dropped
// after serving: the caller then serves it into a discardAnswer writer and calls
// dropAnswer once the handler has returned.
func (f *faultState) apply(w http.ResponseWriter, r *http.Request, route string) (serve, drop bool) {
	faults, status, retryAfter, drop := f.decide(route)
	if faults.LatencyMs > 0 {
		select {
		case <-time.After(time.Duration(faults.LatencyMs) * time.Millisecond):
		case <-r.Context().Done():
			return false, false
		}
	}
	if status == 0 {
		return true, drop
	}
	if status == http.StatusTooManyRequests && retryAfter == 0 {
		retryAfter = 1 // a 429 always carries Retry-After (contract §0), unless the limit is set without (-1)
	}
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		if date, err := http.ParseTime(w.Header().Get("Date")); err == nil && faults.Readings.RetryAfterDate {
			// The same clock as the answer's Date: the platform's.
			w.Header().Set("Retry-After", date.Add(time.Duration(retryAfter)*time.Second).UTC().Format(http.TimeFormat))
		}
	}
	kind, known := faultStatuses[status]
	if !known { // set through SetFaults, which does not validate
		kind.name = strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
		kind.oauth, kind.message = "server_error", http.StatusText(status)
	}
	if isGrantPath(r.URL.Path) {
		// The token endpoint answers in the OAuth 2.0 error form (contract B3).
		oauthError(w, status, kind.oauth, kind.message)
		return false, false
	}
	writeProblem(w, status, namespaceFor(r.URL.Path), kind.name, kind.message, nil)
	return false, false
}

// discardAnswer is the writer of a request whose answer is dropped: the handler
// runs as usual, and nothing it writes reaches the client.
type discardAnswer struct{ header http.Header }

func newDiscardAnswer() *discardAnswer { return &discardAnswer{header: http.Header{}} }

func (d *discardAnswer) Header() http.Header         { return d.header }
func (d *discardAnswer) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardAnswer) WriteHeader(int)             {}

// dropAnswer ends a request whose answer is dropped, after its handler has run:
// http.ErrAbortHandler makes net/http close the connection without a response
// (HTTP/1) or reset the stream (HTTP/2), and log nothing. It must only be called
// under an http.Server, which recovers the panic.
func dropAnswer() { panic(http.ErrAbortHandler) }

// faultStatuses are the statuses an injected failure may carry, with the problem
// NAME, the OAuth error code used on the token endpoint and a message.
var faultStatuses = map[int]struct{ name, oauth, message string }{
	http.StatusTooManyRequests:     {"TOO_MANY_REQUESTS", "temporarily_unavailable", "too many requests; retry later"},
	http.StatusInternalServerError: {"INTERNAL_SERVER_ERROR", "server_error", "unexpected failure"},
	http.StatusBadGateway:          {"BAD_GATEWAY", "temporarily_unavailable", "bad gateway"},
	http.StatusServiceUnavailable:  {"SERVICE_UNAVAILABLE", "temporarily_unavailable", "the service is temporarily unavailable"},
	http.StatusGatewayTimeout:      {"GATEWAY_TIMEOUT", "temporarily_unavailable", "gateway timeout"},
}

// SetFaults replaces the faults in force. Unlike POST /_emulator/faults it does not
// validate f.
func (e *Emulator) SetFaults(f Faults) { e.faults.set(f) }

// IssuedSecrets returns every bearer secret the emulator has handed out since start
// or the last reset and still knows of: the administrator session tokens and
// platform access tokens (live, logged out, expired or removed alike), and the
// viewer path "/viewer/<view id>" of every view whose score still exists (a
// viewer URL is its listener address followed by that path). Tests search logs
// and state for them.
func (e *Emulator) IssuedSecrets() []string {
	var secrets []string
	e.admin.mu.Lock()
	for token := range e.admin.sessions {
		secrets = append(secrets, token)
	}
	e.admin.mu.Unlock()
	e.auth.mu.Lock()
	for token := range e.auth.tokens {
		secrets = append(secrets, token)
	}
	e.auth.mu.Unlock()
	e.scores.mu.Lock()
	for id := range e.scores.views {
		secrets = append(secrets, "/viewer/"+id)
	}
	e.scores.mu.Unlock()
	slices.Sort(secrets)
	return secrets
}

// Expire expires all live access tokens and/or administrator sessions now.
func (e *Emulator) Expire(tokens, sessions bool) {
	if tokens {
		e.auth.expireAll()
	}
	if sessions {
		e.admin.expireAll()
	}
}

func (e *Emulator) routeControl() {
	// A readiness probe: any answer means the emulator serves.
	e.handle("GET /_emulator/ready", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ready": true})
	})
	e.handle("GET /_emulator/stats", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, e.Stats())
	})
	e.handle("POST /_emulator/reset", func(w http.ResponseWriter, _ *http.Request) {
		e.Reset()
		writeJSON(w, http.StatusOK, map[string]any{"reset": true})
	})
	e.handle("POST /_emulator/expire", func(w http.ResponseWriter, r *http.Request) {
		// An empty body expires both.
		req := struct {
			Tokens   bool `json:"tokens"`
			Sessions bool `json:"sessions"`
		}{}
		empty, err := decodeOptionalJSON(r, &req)
		if err != nil {
			badArgument(w, "emulator", "body", err.Error())
			return
		}
		if empty {
			req.Tokens, req.Sessions = true, true
		}
		e.Expire(req.Tokens, req.Sessions)
		writeJSON(w, http.StatusOK, req)
	})
	e.handle("GET /_emulator/faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, e.faults.get())
	})
	e.handle("POST /_emulator/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		if _, err := decodeOptionalJSON(r, &f); err != nil {
			badArgument(w, "emulator", "body", err.Error())
			return
		}
		if field, msg := f.validate(); field != "" {
			badArgument(w, "emulator", field, msg)
			return
		}
		e.SetFaults(f)
		writeJSON(w, http.StatusOK, e.faults.get())
	})
	e.handle("POST /_emulator/commands", e.handleCreateScriptedCommand)
	// Changes made outside Terraform, in one request: a seed document (settings,
	// scores, command scripts) added to the running platform. Parts before the first
	// refused one stay.
	e.handle("POST /_emulator/seed", func(w http.ResponseWriter, r *http.Request) {
		var seed Seed
		if _, err := decodeOptionalJSON(r, &seed); err != nil {
			badArgument(w, "emulator", "body", err.Error())
			return
		}
		if err := e.load(&seed); err != nil {
			badArgument(w, "emulator", "body", err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"settings": len(seed.Settings) > 0, "scores": len(seed.Scores),
			"commands": len(seed.Commands)})
	})
}

// decodeOptionalJSON decodes a JSON body into v; it reports whether the body was empty.
func decodeOptionalJSON(r *http.Request, v any) (empty bool, err error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return false, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return true, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, errors.New("the body is not valid JSON: " + err.Error())
	}
	return false, nil
}
