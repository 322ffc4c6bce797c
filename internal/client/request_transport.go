package client

// The transport under the pipeline, one attempt at a time: a kept-alive connection the
// server had closed (staleConnTransport, which sends a repeatable request once more on a
// new connection), the log line of every attempt (loggingTransport), and what they learn
// of the attempt they send (attemptLabel, set by exchange in request.go).

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

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

// loggingTransport logs every HTTP attempt: method, host, path (never the
// query), status, duration and attempt number. It never logs headers or
// bodies, which carry credentials, tokens and viewer URLs.
type loggingTransport struct {
	next http.RoundTripper
}

// RoundTrip performs and logs one HTTP attempt.
func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	fields := map[string]any{
		"method":      req.Method,
		"host":        req.URL.Host,
		"path":        pathOf(req.URL),
		"duration_ms": float64(time.Since(start).Microseconds()) / 1000,
	}
	if l, ok := attemptOf(ctx); ok {
		fields["attempt"] = l.n
	}
	if err != nil {
		fields["error"] = err.Error()
		logDebug(ctx, "HTTP request failed", fields)
		return resp, err
	}
	fields["status"] = resp.StatusCode
	logDebug(ctx, "HTTP request", fields)
	return resp, nil
}

// attemptLabel is what the transport learns of the attempt it sends (the one context
// value of the pipeline, read-only): its number, for the log, and whether the request
// may be sent again after a failure that may have followed its effect.
type attemptLabel struct {
	n          int
	repeatable bool
}

type attemptKey struct{}

// withAttempt labels ctx with a's current attempt, for the transport.
func withAttempt(ctx context.Context, a *attempts) context.Context {
	return context.WithValue(ctx, attemptKey{}, attemptLabel{n: a.n, repeatable: a.repeatable})
}

// attemptOf is the label of the attempt ctx sends, if any.
func attemptOf(ctx context.Context) (attemptLabel, bool) {
	l, ok := ctx.Value(attemptKey{}).(attemptLabel)
	return l, ok
}
