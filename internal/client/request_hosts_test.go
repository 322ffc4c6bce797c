package client

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestSameHost: one host in any spelling is one host; another port, scheme or host
// is not.
func TestSameHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://[::1]:8080/x", "http://[0:0:0:0:0:0:0:1]:8080/y", true},
		{"http://[::1]:8080", "http://[::1]:08080", true},
		{"http://127.0.0.1:80", "http://[::ffff:127.0.0.1]", true},
		{"https://Platform.Example./auth", "HTTPS://platform.example:443", true},
		{"http://[fd00::10]", "http://[fd00:0::10]:80", true},
		{"http://[::1]:8080", "http://[::2]:8080", false},
		{"http://[::1]:8080", "https://[::1]:8080", false},
		{"http://platform.example", "http://platform.example:8080", false},
		{"http://platform.example", "http://platform.example.evil", false},
		{"http://127.0.0.1", "http://localhost", false},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := sameHost(a, b); got != tc.same {
			t.Errorf("sameHost(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if got := hostKey(a) == hostKey(b); got != tc.same && strings.EqualFold(a.Scheme, b.Scheme) {
			t.Errorf("hostKey(%s) = %s, hostKey(%s) = %s", tc.a, hostKey(a), tc.b, hostKey(b))
		}
	}
}

// TestPlatformHostsNameThePlatformOtherwise: the emulator's token flow names it
// localhost while platform_url says 127.0.0.1. Without platform_hosts the grant is
// refused after one request (GET /auth), naming the host found; with the name in
// platform_hosts the token flow goes on at platform_url's address, and with the host
// given with its scheme it goes there as written; a host no entry names is still
// refused, with nothing sent to it.
func TestPlatformHostsNameThePlatformOtherwise(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{AuthLinkHostName: "localhost"})
	port := env.srv.URL[strings.LastIndex(env.srv.URL, ":")+1:]
	named := "localhost:" + port
	for _, tc := range []struct {
		name  string
		hosts []string
		ok    bool
	}{
		{"unnamed", nil, false},
		{"another host named", []string{"localhost:1", "platform.example"}, false},
		{"another name", []string{named}, true},
		{"another name, any case", []string{"LOCALHOST:" + port}, true},
		{"a host of its own", []string{"http://" + named}, true},
	} {
		before := env.stats().Requests["GET /auth"]
		c := env.client(func(cfg *Config) { cfg.PlatformHosts = tc.hosts })
		_, err := c.ListScores(env.ctx, ListScoresInput{})
		var foreign *ForeignHostError
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !tc.ok && (!errors.As(err, &foreign) || foreign.Host != named):
			t.Errorf("%s: got %v, want the link to %s refused", tc.name, err, named)
		case !tc.ok:
			if n := env.stats().Requests["GET /auth"] - before; n != 1 {
				t.Errorf("%s: GET /auth sent %d times, want 1", tc.name, n)
			}
		}
	}
	if n := env.stats().Requests["POST /auth/oauth2/ropc/default"]; n != 3 {
		t.Errorf("password grants: %d, want 3 (one per client whose platform_hosts name the link)", n)
	}
}

func TestPlatformHostProblem(t *testing.T) {
	t.Parallel()
	for entry, bad := range map[string]bool{
		"platform.example": false, "platform.example:8443": false, "10.0.0.5": false, "[::1]:8443": false,
		"https://tokens.example": false, "http://localhost:8080/": false,
		"": true, "https://x.example/path": true, "ftp://x.example": true, "user:pw@x.example": true,
		"x.example:port": true, "x.example?a=b": true, "https://": true,
	} {
		if got := PlatformHostProblem(entry); (got != "") != bad {
			t.Errorf("PlatformHostProblem(%q) = %q, want a problem: %v", entry, got, bad)
		}
	}
	if got := ParsePlatformHosts(" a.example, ,b.example:8443,"); len(got) != 2 || got[0] != "a.example" || got[1] != "b.example:8443" {
		t.Errorf("ParsePlatformHosts: %q", got)
	}
}
