package client

import (
	"net/url"
	"strings"
	"testing"
)

// TestEquivalentHosts: every spelling of a host that names it is one host, and
// another host is another.
func TestEquivalentHosts(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"dc1.corp.example", "DC1.Corp.Example", "dc1.corp.example.", "DC1.CORP.EXAMPLE."},
		{"fd00::10", "[fd00::10]", "FD00:0::10", "fd00:0:0:0:0:0:0:10"},
		{"10.0.0.9", "::ffff:10.0.0.9", "[::ffff:10.0.0.9]"},
		{"localhost", "LOCALHOST", "localhost."},
	}
	for _, group := range same {
		for _, a := range group {
			for _, b := range group {
				if !EquivalentHosts(a, b) {
					t.Errorf("EquivalentHosts(%q, %q) = false", a, b)
				}
			}
		}
	}
	for i, g := range same {
		for j, h := range same {
			if i != j && EquivalentHosts(g[0], h[0]) {
				t.Errorf("EquivalentHosts(%q, %q) = true", g[0], h[0])
			}
		}
	}
	for _, pair := range [][2]string{{"dc1.corp.example", "dc1.corp.example.com"}, {"dc1", "dc2"}, {".", ""}, {"10.0.0.9", "10.0.0.90"}} {
		if EquivalentHosts(pair[0], pair[1]) {
			t.Errorf("EquivalentHosts(%q, %q) = true", pair[0], pair[1])
		}
	}
}

// TestHostsAgreeEverywhere: the four places that compare hosts (the request hosts,
// a score address's host, the settings blamed on a request, a settings server's
// address) agree, since all use HostKey.
func TestHostsAgreeEverywhere(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]string{{"Platform.Example", "platform.example."}, {"[::FFFF:127.0.0.1]", "127.0.0.1"}} {
		if !EquivalentURLs("https://"+pair[0]+"/x.sib", "https://"+pair[1]+"/x.sib") {
			t.Errorf("score addresses on %q and %q differ", pair[0], pair[1])
		}
		c, err := New(Config{AdminURL: "https://" + pair[0] + "/api/v1", PlatformURL: "https://" + pair[0]})
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse("https://" + pair[1] + "/api/v1/externalauth")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.settingFor(u); got != "admin_url" {
			t.Errorf("a request to %s is blamed on %q, want admin_url", u, got)
		}
		if !hostIn(u, []string{"https://" + pair[0]}) {
			t.Errorf("%s is not on the platform's host %s", u, pair[0])
		}
	}
}

// FuzzEquivalentHosts: HostKey is idempotent and EquivalentHosts reflexive and
// symmetric, whatever the text.
func FuzzEquivalentHosts(f *testing.F) {
	for _, s := range []string{"dc1.corp.example", "DC1.Corp.Example.", "[fd00::10]", "::ffff:10.0.0.9", ".", "", "fe80::1%eth0"} {
		f.Add(s, strings.ToUpper(s))
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if k := HostKey(a); HostKey(k) != k {
			t.Errorf("HostKey(%q) = %q, but HostKey of that is %q", a, k, HostKey(k))
		}
		if !EquivalentHosts(a, a) {
			t.Errorf("%q is not equivalent to itself", a)
		}
		if EquivalentHosts(a, b) != EquivalentHosts(b, a) {
			t.Errorf("EquivalentHosts(%q, %q) is not symmetric", a, b)
		}
	})
}
