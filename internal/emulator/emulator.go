// Package emulator is an in-memory emulator of the media platform; WIRE.md in this
// directory says what it does on the wire. It is an http.Handler serving all three base
// addresses of one deployment (admin_url, platform_url and publishing_url) and the
// emulator-only control surface under /_emulator/.
//
// Every Emulator keeps its own state, so many can run side by side in one process.
// The files mirror the contract's sections: admin.go (A), auth.go (B), scores.go,
// views.go and params.go (C), commands.go (D), datamodel.go (E/F), registry.go (R)
// and control.go (G); readings.go holds the other readings (V) and gateway.go the
// gateway that may stand in front of the platform.
package emulator

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// AdminPath is the path of admin_url on the emulator's listener. It ends in the
// version-1 segment the specification requires.
const AdminPath = "/api/v1"

// DefaultPublishingService is the publishing service name unless configured otherwise.
const DefaultPublishingService = "media.publishing"

// User is an account known to the emulator.
type User struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	// AdminLogin allows logging in to the administrator API (area A).
	AdminLogin bool `json:"adminLogin,omitempty"`
	// Administrator grants administrator rights on the administrator API
	// (external authentication settings); other admin users get 403.
	Administrator bool `json:"administrator,omitempty"`
	// Platform allows the password grant on the platform (areas B–F).
	Platform bool `json:"platform,omitempty"`
	// PlatformAdmin is the platform's administrator role: data-model attributes
	// editable for an administrator carry `readonly` for every other user.
	PlatformAdmin bool `json:"platformAdmin,omitempty"`
}

// OAuthClient is an application credential accepted by the password grant.
type OAuthClient struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// Options configure an Emulator. The zero value gives the defaults of the contract.
type Options struct {
	// PublishingService is the service name in publishing_url; default media.publishing.
	PublishingService string
	// TokenLifetime is the platform access token lifetime; default 900 s.
	TokenLifetime time.Duration
	// SessionIdle is the administrator session idle expiry; default 30 min.
	SessionIdle time.Duration
	// RenderDelay is the time a score spends in each of pending and rendering;
	// default 500 ms. A negative value means no delay at all.
	RenderDelay time.Duration
	// Users replaces the default accounts when non-empty.
	Users []User
	// Clients replaces the default OAuth client when non-empty.
	Clients []OAuthClient
	// InstanceName is reported as the host of commands; default emulator-1.
	InstanceName string
	// Faults are in force from the start and again after every reset; default none.
	Faults Faults
	// Seed is loaded at the start and again by every reset (check it first with
	// Seed.Validate: New loads it up to its first error).
	Seed *Seed
	// AuthLinkHostName, when set, is the host name the token flow's links carry (the
	// /auth document, the identity providers, the token information), with the port
	// the request named: a platform that names itself otherwise than the address its
	// clients use (its DNS name, a load balancer's external name). Default: the host
	// the request named.
	AuthLinkHostName string
	// RateLimitClock is the clock the rate limit of Faults counts its windows on;
	// default time.Now. A test gives it the clock its client waits on, so that waiting
	// for the next window takes no time on the wall.
	RateLimitClock func() time.Time
	// PlatformClock is the platform's clock: the times of scores and views (a score's
	// creation and rendering, the read lag of Faults.LaggingReadsMs, a view's expiry)
	// and the Date header of every answer, before Faults.ClockOffsetSeconds shifts
	// them; default time.Now. Tokens and sessions expire on this machine's clock. A
	// test whose proof must not depend on the machine's speed gives it a clock it moves
	// itself, e.g. one that stands still until the moment the test needs time to pass.
	PlatformClock func() time.Time
}

func (o Options) withDefaults() Options {
	if o.PublishingService == "" {
		o.PublishingService = DefaultPublishingService
	}
	if o.TokenLifetime <= 0 {
		o.TokenLifetime = 900 * time.Second
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 30 * time.Minute
	}
	switch {
	case o.RenderDelay == 0:
		o.RenderDelay = 500 * time.Millisecond
	case o.RenderDelay < 0:
		o.RenderDelay = 0
	}
	// Copies, so that emulators built from one Options value share nothing.
	if len(o.Users) == 0 {
		o.Users = DefaultUsers()
	} else {
		o.Users = slices.Clone(o.Users)
	}
	if len(o.Clients) == 0 {
		o.Clients = DefaultClients()
	} else {
		o.Clients = slices.Clone(o.Clients)
	}
	if o.InstanceName == "" {
		o.InstanceName = "emulator-1"
	}
	return o
}

// Emulator is the in-memory platform. Create it with New.
type Emulator struct {
	opts Options
	mux  *http.ServeMux

	// publishingPath is the path of publishing_url on the listener.
	publishingPath string

	admin    adminState
	auth     authState
	scores   scoreState
	commands commandState
	models   modelState

	stats statsState
	// members are the member names of the answers, by route (Faults.RecordMembers).
	members memberRecord
	faults  faultState
}

var _ http.Handler = (*Emulator)(nil)

// New returns an emulator in its start state.
func New(opts Options) *Emulator {
	opts = opts.withDefaults()
	e := &Emulator{
		opts:           opts,
		mux:            http.NewServeMux(),
		publishingPath: AdminPath + "/apis/" + opts.PublishingService + ";version=2;realm=global",
	}
	e.models = loadModels()
	e.faults.now = opts.RateLimitClock
	e.scores.now = opts.PlatformClock
	e.reset()

	e.routeAdmin()
	e.routeAuth()
	e.routeScores()
	e.routeCommands()
	e.routeDataModel()
	e.routeRegistry()
	e.routeControl()
	e.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, http.StatusNotFound, namespaceFor(r.URL.Path), "NOT_FOUND",
			"no resource at "+r.URL.Path, map[string]any{"path": r.URL.Path})
	})
	return e
}

// Options returns the options in force, defaults filled in.
func (e *Emulator) Options() Options { return e.opts }

// AdminURL returns admin_url for a listener at base (scheme://host).
func (e *Emulator) AdminURL(base string) string { return strings.TrimRight(base, "/") + AdminPath }

// PlatformURL returns platform_url for a listener at base (scheme://host).
func (e *Emulator) PlatformURL(base string) string { return strings.TrimRight(base, "/") }

// PublishingURL returns publishing_url for a listener at base (scheme://host).
func (e *Emulator) PublishingURL(base string) string {
	return strings.TrimRight(base, "/") + e.publishingPath
}

// reset puts every area back in its start state and zeroes the counters.
func (e *Emulator) reset() {
	e.admin.reset()
	e.auth.reset()
	e.scores.reset()
	e.commands.reset()
	e.stats.reset()
	e.faults.start(e.opts.Faults)
	_ = e.load(e.opts.Seed) // checked by Seed.Validate before
}

// handle registers a route. Every pattern carries its method.
func (e *Emulator) handle(pattern string, h http.HandlerFunc) {
	e.mux.HandleFunc(pattern, h)
}

// ServeHTTP counts the request, checks platform requests at the gateway
// (Faults.RequireHeader), applies the configured faults to them (never to the control
// surface) and dispatches it. A path served under another
// method gets 405 with an Allow header; any other unknown address gets 404. A
// request whose answer the faults drop (Faults.DropRate) ends in a panic with
// http.ErrAbortHandler, which an http.Server turns into a closed connection.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, pattern := e.mux.Handler(r)
	unmatched := pattern == "" || pattern == "/"
	if unmatched {
		pattern = r.Method + " (unmatched)"
	}
	if !strings.HasPrefix(r.URL.Path, "/_emulator/") {
		// Counted even when the gateway or a fault refuses it: it reached the listener.
		e.stats.count(pattern)
		faults := e.faults.get()
		// The gateway stands in front of the platform: it answers before the platform's
		// clock, faults and authentication come into play.
		if !admitThroughGateway(w, r, faults.RequireHeader) {
			return
		}
		offsetAt, shifted := e.faults.clock()
		// The platform's clock, for clients that compare timestamps with it.
		w.Header().Set("Date", e.scores.clock().Add(offsetAt(time.Now())).UTC().Format(http.TimeFormat))
		if !shifted {
			offsetAt = nil
		}
		if shifted || faults.Readings.rewritesAnswers() || len(faults.OmitMembers) > 0 || faults.RecordMembers {
			aw := newAnswerWriter(w, faults.Readings, offsetAt)
			aw.omit = faults.OmitMembers
			if faults.RecordMembers {
				aw.record = func(names []string) { e.members.add(pattern, names) }
			}
			defer aw.flush()
			w = aw
		}
		serve, drop := e.faults.apply(w, r, pattern)
		if !serve {
			return
		}
		if drop {
			w = newDiscardAnswer()
			defer dropAnswer()
		}
	}
	if unmatched {
		if allow := e.allowedMethods(r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeProblem(w, http.StatusMethodNotAllowed, namespaceFor(r.URL.Path), "METHOD_NOT_ALLOWED",
				r.Method+" is not supported on "+r.URL.Path, map[string]any{"method": r.Method, "allow": allow})
			return
		}
	}
	e.mux.ServeHTTP(w, r)
}

// allowedMethods lists the methods that a route serves r's path with.
func (e *Emulator) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := new(http.Request)
		*probe = *r
		probe.Method = m
		if _, p := e.mux.Handler(probe); p != "" && p != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

// baseURL is scheme://host of the listener as the caller reached it; the emulator's
// hrefs are absolute URLs built on it.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// namespaceFor names the problem-code namespace of the area serving path.
func namespaceFor(path string) string {
	switch {
	case strings.HasPrefix(path, AdminPath+"/apis/"):
		return "publishing"
	case strings.HasPrefix(path, AdminPath+"/"):
		return "admin"
	case strings.HasPrefix(path, "/auth"):
		return "auth"
	case strings.HasPrefix(path, "/apis/commands"):
		return "commands"
	case strings.HasPrefix(path, "/apis/datamodel"):
		return "datamodel"
	case strings.HasPrefix(path, "/apis/registry"):
		return "registry"
	case strings.HasPrefix(path, "/viewer/"):
		return "publishing"
	case strings.HasPrefix(path, "/_emulator/"):
		// The control surface is not part of the platform (contract G).
		return "emulator"
	default:
		return "registry"
	}
}

// timeFormat is RFC 3339 in UTC with milliseconds (contract §0).
const timeFormat = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// writeJSON writes v as an application/json body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, "application/json", status, v)
}

// writeHAL writes v as an application/hal+json body. It takes a status like
// writeJSON, although every HAL resource so far is served with 200.
//
//nolint:unparam // the same shape as writeJSON on purpose
func writeHAL(w http.ResponseWriter, status int, v any) {
	writeBody(w, "application/hal+json", status, v)
}

func writeBody(w http.ResponseWriter, contentType string, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// problem is the error body of every area but the OAuth token endpoint (contract §0).
type problem struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Params  map[string]any `json:"params"`
	Status  int            `json:"status"`
}

// writeProblem writes an application/problem+json error with code namespace/name.
func writeProblem(w http.ResponseWriter, status int, namespace, name, message string, params map[string]any) {
	if params == nil {
		params = map[string]any{}
	}
	body, _ := json.Marshal(problem{Code: namespace + "/" + name, Message: message, Params: params, Status: status})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// badArgument writes 400 <namespace>/BAD_ARGUMENT naming field in params.field.
func badArgument(w http.ResponseWriter, namespace, field, message string) {
	writeProblem(w, http.StatusBadRequest, namespace, "BAD_ARGUMENT", message, map[string]any{"field": field})
}

// statsState counts requests per route pattern and logins.
type statsState struct {
	mu          sync.Mutex
	requests    map[string]int
	adminLogins int
	oauthLogins int
}

func (s *statsState) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = map[string]int{}
	s.adminLogins = 0
	s.oauthLogins = 0
}

func (s *statsState) count(pattern string) {
	s.mu.Lock()
	s.requests[pattern]++
	s.mu.Unlock()
}

func (s *statsState) login(admin bool) {
	s.mu.Lock()
	if admin {
		s.adminLogins++
	} else {
		s.oauthLogins++
	}
	s.mu.Unlock()
}

// Stats is the body of GET /_emulator/stats.
type Stats struct {
	// Requests counts platform requests by "<METHOD> <route pattern>", the pattern
	// being the full path template on the listener. Every request that reaches the
	// emulator counts, also one that the gateway (Faults.RequireHeader) or an injected
	// fault refuses; a connection refused in the TLS handshake (Faults.ClientCACertPEM)
	// sends none.
	Requests map[string]int `json:"requests"`
	// Logins counts successful logins: "admin" (POST /login) and "oauth" (grants).
	Logins       map[string]int `json:"logins"`
	LiveSessions int            `json:"liveSessions"`
	LiveTokens   int            `json:"liveTokens"`
	Scores       int            `json:"scores"`
	// Views counts the existing score views: those of existing scores, expired or not.
	Views int `json:"views"`
	// RateLimited counts the requests the rate limit (Faults.RateLimitPerSecond)
	// refused with 429; they count in Requests too.
	RateLimited int `json:"rateLimited,omitempty"`
}

// TotalRequests is the sum of all request counts.
func (s Stats) TotalRequests() int {
	n := 0
	for _, c := range s.Requests {
		n += c
	}
	return n
}

// Stats returns the counters since start or the last reset.
func (e *Emulator) Stats() Stats {
	e.stats.mu.Lock()
	reqs := make(map[string]int, len(e.stats.requests))
	for k, v := range e.stats.requests {
		reqs[k] = v
	}
	logins := map[string]int{"admin": e.stats.adminLogins, "oauth": e.stats.oauthLogins}
	e.stats.mu.Unlock()
	return Stats{
		Requests:     reqs,
		Logins:       logins,
		LiveSessions: e.admin.live(),
		LiveTokens:   e.auth.live(),
		RateLimited:  e.faults.rateLimited(),
		Scores:       e.scores.count(),
		Views:        e.scores.viewCount(),
	}
}

// Reset empties the store, zeroes the counters, puts the faults back to
// Options.Faults and the settings back in their start state.
func (e *Emulator) Reset() { e.reset() }
