package client

// The fuzz target of request_headers.go: request_headers, as the provider checks it
// at plan time and the client sends it.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
)

// FuzzRequestHeader fuzzes an entry of request_headers: a header CheckRequestHeader
// takes is one net/http sends (a header net/http refuses would fail every request at
// apply time, after a plan that passed); ParseRequestHeaders reads the environment
// variable's JSON without a panic.
func FuzzRequestHeader(f *testing.F) {
	for _, h := range [][2]string{{"CF-Access-Client-Id", "abc.access"}, {"X-Api-Key", "k\tv"}, {"Proxy-Authorization", "Basic x"},
		{"authorization", "Bearer x"}, {"X Bad", "v"}, {"X-Line", "a\r\nInjected: 1"}, {"X-Del", "a\x7fb"}, {"X-Ctl", "a\x01b"},
		{"X-Utf8", "é"}, {"X-Bad-Utf8", "\xff"}, {"", "v"}, {"Host", "evil.example"}} {
		f.Add(h[0], h[1])
	}
	transport := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) { return nil, errNoDial }}
	f.Fuzz(func(t *testing.T, name, value string) {
		var problem string
		within(t, "CheckRequestHeader", name, func() {
			problem = CheckRequestHeader(name, value)
			_, _ = ParseRequestHeaders(name)
		})
		if problem != "" {
			return
		}
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://platform.example/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(name, value)
		resp, err := transport.RoundTrip(req)
		if resp != nil {
			_ = resp.Body.Close()
		}
		if !errors.Is(err, errNoDial) {
			t.Fatalf("the header %q: %q passes CheckRequestHeader, and net/http does not send it: %v", name, value, err)
		}
	})
}
