package client

// The fuzz targets of network.go: platform_hosts and request_headers, as the
// provider checks them at plan time and the client uses them.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzPlatformHosts fuzzes MEDIAPLATFORM_PLATFORM_HOSTS and each of its entries: an
// entry PlatformHostProblem finds nothing wrong with is taken by New and matched
// against addresses without a panic; a list is read as trimmed, non-empty entries.
func FuzzPlatformHosts(f *testing.F) {
	for _, s := range []string{"platform.example", "10.0.0.5:8443", "https://tokens.example", "[::1]:8443",
		" a.example , ,b.example:80 ", "http://user:pw@a.example", "a.example/path", "a.example:http", "[::1", "ftp://a",
		"https://a.example:99999999999999999999", "xn--bcher-kva.example", "http://[fe80::1%25eth0]:1", ",,,", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var hosts []string
		within(t, "ParsePlatformHosts", text, func() { hosts = ParsePlatformHosts(text) })
		for _, h := range hosts {
			if h == "" || h != strings.TrimSpace(h) || strings.Contains(h, ",") {
				t.Fatalf("%q gave the entry %q", text, h)
			}
			var problem string
			within(t, "PlatformHostProblem", h, func() { problem = PlatformHostProblem(h) })
			if problem != "" {
				continue
			}
			c, err := New(Config{PlatformURL: "https://platform.example", PlatformHosts: []string{h}})
			if err != nil {
				t.Fatalf("the entry %q has no problem, and New refuses it: %v", h, err)
			}
			for _, raw := range []string{"https://" + h + "/auth", "http://" + h, h} {
				if u, err := url.Parse(raw); err == nil {
					within(t, "viaPlatformHosts", raw, func() { _, _ = c.viaPlatformHosts(u) })
				}
			}
		}
	})
}

// errNoDial ends a request of FuzzRequestHeader where it would dial: its headers passed.
var errNoDial = errors.New("fuzz: not dialled")

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
