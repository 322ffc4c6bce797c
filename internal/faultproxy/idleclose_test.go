package faultproxy

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestIdleCloser: a request on a new connection, or on one reused before it lay idle
// for the time given, is forwarded; one that arrives on a connection idle for longer
// finds it closed, without an answer and without reaching the platform.
func TestIdleCloser(t *testing.T) {
	t.Parallel()
	srv, reached := backend(t)
	const idle = 200 * time.Millisecond
	c := StartIdleCloser(srv.URL, idle)
	t.Cleanup(c.Close)
	// One connection at most, never redialled by net/http itself on a POST.
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: 10 * time.Second}
	post := func() error {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, c.URL+"/scores", strings.NewReader("{}"))
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	if err := post(); err != nil {
		t.Fatalf("first request: %v", err)
	}
	if err := post(); err != nil {
		t.Fatalf("a request on a connection reused at once: %v", err)
	}
	time.Sleep(idle + 50*time.Millisecond)
	if err := post(); err == nil {
		t.Fatal("a request on a connection idle for longer than the limit was answered")
	}
	if err := post(); err != nil {
		t.Fatalf("a request on a new connection: %v", err)
	}
	if n, closed := reached.Load(), c.Closed(); n != 3 || len(closed) != 1 || closed[0].Method != http.MethodPost {
		t.Errorf("%d requests reached the platform and %v were lost, want 3 and the one POST", n, closed)
	}
}
