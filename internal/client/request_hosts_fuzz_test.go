package client

// The fuzz target of request_hosts.go: platform_hosts, as the provider checks it at
// plan time and the client uses it.

import (
	"errors"
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
