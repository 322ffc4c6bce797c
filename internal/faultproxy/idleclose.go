package faultproxy

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// IdleCloser is a listener in front of a platform that closes kept-alive connections
// the way servers do on their own schedule (Node.js after 5 s idle, load balancers
// after 60 s), in the one case a client cannot see coming: the connection is closed
// just as the next request arrives on it, so that request is lost before any answer.
// A request that arrives on a connection which already carried one, and lay idle for
// at least Idle since, finds the connection closed without an answer; the request is
// never forwarded and so has no effect. A request on a new connection, or on one
// reused sooner, is forwarded as it is (keeping its Host, as Proxy does).
type IdleCloser struct {
	// URL is scheme://host of the listener.
	URL string

	srv     *httptest.Server
	forward *httputil.ReverseProxy
	idle    time.Duration

	mu     sync.Mutex
	closed []Request // the requests lost on a connection closed when they arrived
}

// connKey is the context key of a connection's state.
type connKey struct{}

// idleConn is what IdleCloser knows of one client connection.
type idleConn struct {
	mu       sync.Mutex
	answered int       // requests answered on it
	last     time.Time // when the latest answer was written
}

// StartIdleCloser starts an IdleCloser in front of target (scheme://host) that closes a
// connection idle for at least idle when the next request arrives on it (0: every
// connection, at its second request). Close it when done.
func StartIdleCloser(target string, idle time.Duration) *IdleCloser {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		panic("faultproxy: target " + target + " is not scheme://host")
	}
	c := &IdleCloser{idle: idle}
	c.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{Proxy: nil, DisableCompression: true},
	}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(c.serve))
	c.srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, &idleConn{})
	}
	c.srv.Start()
	c.URL = c.srv.URL
	return c
}

func (c *IdleCloser) serve(w http.ResponseWriter, r *http.Request) {
	conn, _ := r.Context().Value(connKey{}).(*idleConn)
	conn.mu.Lock()
	stale := conn.answered > 0 && time.Since(conn.last) >= c.idle
	conn.mu.Unlock()
	if stale {
		c.mu.Lock()
		c.closed = append(c.closed, Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
			Header: r.Header.Clone(), Fault: -1})
		c.mu.Unlock()
		drop(w)
		return
	}
	c.forward.ServeHTTP(w, r)
	conn.mu.Lock()
	conn.answered++
	conn.last = time.Now()
	conn.mu.Unlock()
}

// Closed returns the requests lost so far, in order: each arrived on a kept-alive
// connection that was closed without an answer.
func (c *IdleCloser) Closed() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Request(nil), c.closed...)
}

// Close stops the listener and closes every connection it holds.
func (c *IdleCloser) Close() {
	c.srv.CloseClientConnections()
	c.srv.Close()
}
