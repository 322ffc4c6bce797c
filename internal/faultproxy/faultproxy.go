// Package faultproxy is a test tool: an HTTP proxy on loopback, placed between the
// provider (or the client) and an emulator, that produces the faults a faithful
// emulator never produces by itself. It answers a route in the platform's place,
// forwards a request and then mangles, delays, holds or drops the answer (so the
// platform has acted but the caller cannot know), rewrites list requests to cap
// their pages, and records every request it saw.
//
// The proxy keeps the Host header of the incoming request, so an emulator behind
// it builds its absolute hrefs with the proxy's address and every later request of
// the token flow comes back through the proxy too.
//
// Only tests use this package; no production code may import it.
package faultproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is one rule of the proxy. A request matches when its method equals
// Method (any method when empty) and its escaped path matches the regular
// expression Path (any path when empty). The first matching active fault
// applies; Times limits how many requests it applies to (0: every one); Busy
// limits it to requests that arrive while at least Busy others are forwarded and
// not yet answered (a platform that serves only so many calls at once).
//
// What a fault does, in the order a request meets it:
//   - Latency: waits before forwarding.
//   - Respond: answers in the platform's place; the request is not forwarded and
//     so has no effect. Nothing below applies.
//   - Handle: answers in the platform's place with a handler of the test's own (an
//     answer that depends on the request or on earlier ones), like Respond.
//   - Query: rewrites the query before forwarding (e.g. caps a list page), and the
//     top-level string and number members of a JSON object body the same way, so
//     that a parameter is rewritten wherever it travels.
//   - then the request is forwarded and the platform acts on it;
//   - Hold: the answer waits until the channel is closed (or the caller gives up);
//   - Delay: the answer waits this long (or until the caller gives up);
//   - Drop: the connection is closed with no answer at all;
//   - Status: replaces the platform's status code;
//   - Body: replaces the platform's body with Body(original); Content-Length
//     follows the new body;
//   - Header: rewrites the platform's answer headers in place (e.g. GatewayDate, a
//     gateway that sets Date from its own clock).
type Fault struct {
	Method string
	Path   string
	Times  int
	Busy   int

	Latency time.Duration
	Respond *Answer
	Handle  http.HandlerFunc
	Query   func(url.Values)

	Hold   <-chan struct{}
	Delay  time.Duration
	Drop   bool
	Status int
	Body   func([]byte) []byte
	Header func(http.Header)
}

// Answer is a response the proxy gives in the platform's place.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}

// Request is what the proxy recorded of one request.
type Request struct {
	Method string
	Path   string // escaped path
	Query  string
	Header http.Header
	Body   []byte
	// Fault is the index (in the order of Add) of the fault that applied, or -1.
	Fault int
}

// Proxy is a running fault-injecting proxy. Its methods are safe for concurrent use.
type Proxy struct {
	// URL is scheme://host of the proxy's listener.
	URL string

	srv     *httptest.Server
	forward *httputil.ReverseProxy

	mu       sync.Mutex
	faults   []*rule
	requests []Request
	// forwarding counts the requests forwarded (or waiting out a Latency before it)
	// whose answer has not come back yet: what Busy compares with.
	forwarding int
}

type rule struct {
	Fault
	path *regexp.Regexp
	hits int
}

// Start starts a proxy in front of target (scheme://host). Close it when done.
func Start(target string) *Proxy {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		panic(fmt.Sprintf("faultproxy: target %q is not scheme://host", target))
	}
	p := &Proxy{}
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host // the emulator builds hrefs from Host: keep callers on the proxy
		},
		// The proxy must see redirects and errors as they are, never follow them.
		Transport: &http.Transport{Proxy: nil, DisableCompression: true},
		ErrorLog:  nil,
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	return p
}

// Close stops the proxy and closes every connection it holds.
func (p *Proxy) Close() {
	p.srv.CloseClientConnections()
	p.srv.Close()
}

// Add installs a fault after those already installed and returns its index.
func (p *Proxy) Add(f Fault) int {
	r := &rule{Fault: f}
	if f.Path != "" {
		r.path = regexp.MustCompile(f.Path)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, r)
	return len(p.faults) - 1
}

// Clear removes every fault; the proxy forwards everything from now on.
func (p *Proxy) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
}

// Hits returns how many requests fault i applied to.
func (p *Proxy) Hits(i int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faults[i].hits
}

// Requests returns a copy of every request the proxy received, in order.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// Count returns how many requests with this method had a path matching the
// regular expression path.
func (p *Proxy) Count(method, path string) int {
	re := regexp.MustCompile(path)
	n := 0
	for _, r := range p.Requests() {
		if (method == "" || r.Method == method) && re.MatchString(r.Path) {
			n++
		}
	}
	return n
}

// match records r and returns the fault that applies to it (nil: none).
func (p *Proxy) match(r *http.Request, body []byte) *rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	rec := Request{
		Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body, Fault: -1,
	}
	var found *rule
	for i, f := range p.faults {
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		if f.path != nil && !f.path.MatchString(r.URL.EscapedPath()) {
			continue
		}
		if f.Times > 0 && f.hits >= f.Times {
			continue
		}
		if f.Busy > 0 && p.forwarding < f.Busy {
			continue
		}
		f.hits++
		rec.Fault, found = i, f
		break
	}
	p.requests = append(p.requests, rec)
	if found == nil || (found.Respond == nil && found.Handle == nil) {
		p.forwarding++ // counted with the decision, so that Busy sees every request before it
	}
	return found
}

// forwarded ends the count of one request that match counted as forwarded.
func (p *Proxy) forwarded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forwarding--
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "faultproxy: reading the request: "+err.Error(), http.StatusBadGateway)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	f := p.match(r, body)
	if f == nil || (f.Respond == nil && f.Handle == nil) {
		defer p.forwarded()
	}
	if f == nil {
		p.forward.ServeHTTP(w, r)
		return
	}
	if f.Latency > 0 && !wait(r, time.After(f.Latency)) {
		return
	}
	if f.Handle != nil {
		f.Handle(w, r)
		return
	}
	if a := f.Respond; a != nil {
		for k, vs := range a.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(a.Status)
		_, _ = io.WriteString(w, a.Body)
		return
	}
	if f.Query != nil {
		q := r.URL.Query()
		f.Query(q)
		r.URL.RawQuery = q.Encode()
		if rewritten, ok := rewriteBodyParams(body, f.Query); ok {
			r.Body = io.NopCloser(bytes.NewReader(rewritten))
			r.ContentLength = int64(len(rewritten))
			r.Header.Set("Content-Length", strconv.Itoa(len(rewritten)))
		}
	}

	// Forward and keep the platform's whole answer, then deliver it mangled.
	rec := httptest.NewRecorder()
	p.forward.ServeHTTP(rec, r.WithContext(r.Context()))
	if f.Hold != nil && !wait(r, f.Hold) {
		return
	}
	if f.Delay > 0 && !wait(r, time.After(f.Delay)) {
		return
	}
	if f.Drop {
		drop(w)
		return
	}
	status, answer := rec.Code, rec.Body.Bytes()
	if f.Status != 0 {
		status = f.Status
	}
	if f.Body != nil {
		answer = f.Body(answer)
	}
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	if f.Header != nil {
		f.Header(w.Header())
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(status)
	_, _ = w.Write(answer)
}

// rewriteBodyParams applies rewrite to the top-level members of a JSON object body,
// seen as a query string would carry them: strings and numbers as their text, other
// values as JSON text (e.g. score={"status":"idle"}). ok is false when the body is no
// JSON object.
func rewriteBodyParams(body []byte, rewrite func(url.Values)) ([]byte, bool) {
	var doc map[string]json.RawMessage
	if len(bytes.TrimSpace(body)) == 0 || json.Unmarshal(body, &doc) != nil {
		return nil, false
	}
	params := url.Values{}
	for k, raw := range doc {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			params.Set(k, s)
		} else {
			params.Set(k, string(raw))
		}
	}
	before := params.Encode()
	rewrite(params)
	if params.Encode() == before {
		return body, true
	}
	out := map[string]json.RawMessage{}
	for k := range params {
		v := params.Get(k)
		if raw, kept := doc[k]; kept && v == string(raw) {
			out[k] = raw
			continue
		}
		var s string
		if raw, kept := doc[k]; kept && json.Unmarshal(raw, &s) == nil && s == v {
			out[k] = raw
			continue
		}
		if json.Valid([]byte(v)) && !strings.HasPrefix(v, `"`) {
			out[k] = json.RawMessage(v) // a number, or JSON text of an object
		} else {
			out[k], _ = json.Marshal(v)
		}
	}
	rewritten, err := json.Marshal(out)
	if err != nil {
		return nil, false
	}
	return rewritten, true
}

// wait blocks until ch delivers or is closed, or the caller gives up; it reports
// whether the proxy should still answer.
func wait[T any](r *http.Request, ch <-chan T) bool {
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
		return false
	}
}

// drop closes the connection of w without writing an answer.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("faultproxy: the connection cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// Truncate returns a Body rewrite that keeps the first n bytes of the answer.
func Truncate(n int) func([]byte) []byte {
	return func(b []byte) []byte {
		if len(b) > n {
			return b[:n]
		}
		return b
	}
}

// Replace returns a Body rewrite that answers with s whatever the platform said.
func Replace(s string) func([]byte) []byte {
	return func([]byte) []byte { return []byte(s) }
}

// GatewayDate returns a Header rewrite that sets Date to this machine's clock
// shifted by offset, as a reverse proxy in front of the platform that writes its
// own Date would: the platform's timestamps then disagree with the Date header by
// however far the two clocks are apart.
func GatewayDate(offset time.Duration) func(http.Header) {
	return func(h http.Header) {
		h.Set("Date", time.Now().Add(offset).UTC().Format(http.TimeFormat))
	}
}

// CapLimit returns a Query rewrite that lowers the list parameter limit to at
// most n (and sets it when absent), as a platform that caps its pages would.
func CapLimit(n int) func(url.Values) {
	return func(q url.Values) {
		if l, err := strconv.Atoi(q.Get("limit")); err == nil && l <= n {
			return
		}
		q.Set("limit", strconv.Itoa(n))
	}
}

// Redirect is an Answer that redirects (307, so the method and body are kept) to
// location.
func Redirect(location string) *Answer {
	return &Answer{Status: http.StatusTemporaryRedirect, Header: http.Header{"Location": {location}}}
}

// Recorder is a listener that records every request it receives and answers each
// with its Answer (by default 200 and an empty JSON object): the "other host" of
// the leak tests, which must never receive a credential.
type Recorder struct {
	// URL is scheme://host of the recorder's listener.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	answer   Answer
	requests []Request
}

// StartRecorder starts a recorder. Close it when done.
func StartRecorder() *Recorder {
	rec := &Recorder{answer: Answer{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: "{}"}}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.requests = append(rec.requests, Request{
			Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body, Fault: -1,
		})
		a := rec.answer
		rec.mu.Unlock()
		for k, vs := range a.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(a.Status)
		_, _ = io.WriteString(w, a.Body)
	}))
	rec.URL = rec.srv.URL
	return rec
}

// SetAnswer changes what the recorder answers from now on.
func (rec *Recorder) SetAnswer(a Answer) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.answer = a
}

// Requests returns a copy of every request the recorder received, in order.
func (rec *Recorder) Requests() []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Request(nil), rec.requests...)
}

// Close stops the recorder.
func (rec *Recorder) Close() { rec.srv.Close() }

// Contains reports whether any recorded request carries s anywhere: in its path,
// query, a header value or its body. A leak test asserts it is false for every
// secret.
func (rec *Recorder) Contains(s string) bool {
	for _, r := range rec.Requests() {
		if bytes.Contains(r.Body, []byte(s)) || bytes.Contains([]byte(r.Path+"?"+r.Query), []byte(s)) {
			return true
		}
		for _, vs := range r.Header {
			for _, v := range vs {
				if bytes.Contains([]byte(v), []byte(s)) {
					return true
				}
			}
		}
	}
	return false
}
