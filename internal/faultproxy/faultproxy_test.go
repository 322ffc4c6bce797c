package faultproxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// backend counts the requests that reached it and answers {"limit": "<query limit>"}.
func backend(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Host", r.Host)
		_, _ = io.WriteString(w, `{"limit":"`+r.URL.Query().Get("limit")+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// answer is what get saw of one exchange.
type answer struct {
	status int
	header http.Header
	body   string
}

func get(t *testing.T, u string) (answer, error) {
	t.Helper()
	c := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}, err
}

func TestProxyFaults(t *testing.T) {
	srv, reached := backend(t)
	p := Start(srv.URL)
	defer p.Close()

	// No fault: forwarded as is, Host kept.
	a, err := get(t, p.URL+"/a?limit=5")
	if err != nil || a.status != 200 || a.body != `{"limit":"5"}` {
		t.Fatalf("plain: %+v %v", a, err)
	}
	if h := a.header.Get("X-Host"); h != strings.TrimPrefix(p.URL, "http://") {
		t.Errorf("the backend saw Host %q, want the proxy's", h)
	}

	// Respond: not forwarded; applies Times times only.
	i := p.Add(Fault{Method: http.MethodGet, Path: `^/r$`, Times: 1, Respond: &Answer{Status: 503, Body: "busy"}})
	before := reached.Load()
	if a, _ := get(t, p.URL+"/r"); a.status != 503 || a.body != "busy" {
		t.Errorf("respond: %+v", a)
	}
	if reached.Load() != before {
		t.Error("an answered request was forwarded")
	}
	if a, _ := get(t, p.URL+"/r"); a.status != 200 || p.Hits(i) != 1 {
		t.Errorf("after Times ran out: %d, hits %d", a.status, p.Hits(i))
	}

	// Body and Status after effect.
	p.Add(Fault{Path: `^/t$`, Body: Truncate(3), Status: 502})
	before = reached.Load()
	if a, _ := get(t, p.URL+"/t"); a.status != 502 || a.body != `{"l` {
		t.Errorf("truncate: %+v", a)
	}
	if reached.Load() != before+1 {
		t.Error("a truncated answer's request did not reach the backend")
	}

	// Query rewrite caps the page.
	p.Add(Fault{Path: `^/list$`, Query: CapLimit(2)})
	if a, _ := get(t, p.URL+"/list?limit=100"); a.body != `{"limit":"2"}` {
		t.Errorf("cap: %q", a.body)
	}

	// Drop after effect: the request reached the backend, the caller gets no answer.
	p.Add(Fault{Path: `^/drop$`, Drop: true})
	before = reached.Load()
	if _, err := get(t, p.URL+"/drop"); err == nil {
		t.Error("drop: got an answer")
	}
	if reached.Load() <= before { // Go's transport may repeat a GET once on a closed reused connection
		t.Error("a dropped request did not reach the backend")
	}

	// Hold: the answer waits for the release.
	release := make(chan struct{})
	p.Add(Fault{Path: `^/hold$`, Hold: release})
	done := make(chan string, 1)
	go func() {
		a, _ := get(t, p.URL+"/hold")
		done <- a.body
	}()
	select {
	case <-done:
		t.Fatal("a held answer arrived before the release")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if body := <-done; body != `{"limit":""}` {
		t.Errorf("held answer %q", body)
	}

	// Header: a gateway's Date, 3 h behind this machine's clock, replaces the backend's.
	p.Add(Fault{Path: `^/date$`, Header: GatewayDate(-3 * time.Hour)})
	if a, _ := get(t, p.URL+"/date"); a.status != 200 || a.body != `{"limit":""}` {
		t.Errorf("gateway date: %+v", a)
	} else if date, err := http.ParseTime(a.header.Get("Date")); err != nil {
		t.Errorf("gateway date: Date %q: %v", a.header.Get("Date"), err)
	} else if off := time.Until(date) + 3*time.Hour; off < -2*time.Second || off > 2*time.Second {
		t.Errorf("gateway date: Date %s is %s from 3 h behind this machine's clock", date, off)
	}

	// Redirect.
	p.Add(Fault{Path: `^/redir$`, Respond: Redirect("http://elsewhere.invalid/x")})
	if a, _ := get(t, p.URL+"/redir"); a.status != 307 || a.header.Get("Location") != "http://elsewhere.invalid/x" {
		t.Errorf("redirect: %+v", a)
	}

	if n := p.Count(http.MethodGet, `^/r$`); n != 2 {
		t.Errorf("Count(/r) = %d, want 2", n)
	}
}

// TestProxyBusy: a fault with Busy applies only to a request that arrives while that
// many others are forwarded and unanswered; a request answered in the platform's place
// is not counted, and once the one in flight is answered the next is forwarded again.
func TestProxyBusy(t *testing.T) {
	srv, reached := backend(t)
	p := Start(srv.URL)
	defer p.Close()
	release := make(chan struct{})
	p.Add(Fault{Busy: 1, Respond: &Answer{Status: http.StatusTooManyRequests}})
	p.Add(Fault{Path: `^/slow$`, Hold: release})

	held := make(chan answer)
	go func() {
		a, err := get(t, p.URL+"/slow")
		if err != nil {
			t.Error(err)
		}
		held <- a
	}()
	for len(p.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	for range 2 {
		if a, _ := get(t, p.URL+"/fast"); a.status != http.StatusTooManyRequests {
			t.Errorf("while one request is in flight: %d, want 429", a.status)
		}
	}
	close(release)
	if a := <-held; a.status != http.StatusOK {
		t.Errorf("the request in flight: %d, want 200", a.status)
	}
	if a, _ := get(t, p.URL+"/fast"); a.status != http.StatusOK {
		t.Errorf("once the request in flight was answered: %d, want 200", a.status)
	}
	if n := reached.Load(); n != 2 {
		t.Errorf("%d requests reached the platform, want 2", n)
	}
}

func TestRecorder(t *testing.T) {
	rec := StartRecorder()
	defer rec.Close()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, rec.URL+"/x?q=1", strings.NewReader(url.Values{"pass": {"s3cret"}}.Encode()))
	req.Header.Set("Authorization", "Bearer tok-123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, s := range []string{"s3cret", "tok-123", "q=1"} {
		if !rec.Contains(s) {
			t.Errorf("the recorder did not see %q", s)
		}
	}
	if rec.Contains("other") {
		t.Error("Contains reports what was never sent")
	}
}
