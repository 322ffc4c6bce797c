package client

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestRequestHeadersOnlyToThePlatform: the configured request headers reach the
// platform with every request, are masked in the logs, and never reach another host:
// a platform link to a second host is refused before anything is sent there.
func TestRequestHeadersOnlyToThePlatform(t *testing.T) {
	t.Parallel()
	const header, value = "X-Gateway-Key", "gw-secret-5d1c"
	var mu sync.Mutex
	seen := map[string]int{} // host → requests with the header
	missing := 0
	second := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen["second"]++
	}))
	t.Cleanup(second.Close)
	env := newEmuEnv(t, emulator.Options{})
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get(header) == value {
			seen["platform"]++
		} else {
			missing++
		}
		mu.Unlock()
		env.emu.ServeHTTP(w, r)
	}))
	t.Cleanup(gateway.Close)
	c := env.client(func(cfg *Config) {
		cfg.AdminURL, cfg.PlatformURL = env.emu.AdminURL(gateway.URL), env.emu.PlatformURL(gateway.URL)
		cfg.RequestHeaders = map[string]string{header: value}
	})
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/h.sib"}); err != nil {
		t.Fatal(err)
	}
	// A link of the platform's to another host: refused, nothing sent there.
	if _, err := c.platformHref(env.ctx, second.URL+"/apis/elsewhere"); err == nil {
		t.Error("a link to a second host was accepted")
	}
	mu.Lock()
	defer mu.Unlock()
	if missing > 0 || seen["platform"] < 4 {
		t.Errorf("the platform got %d requests with the header and %d without", seen["platform"], missing)
	}
	if seen["second"] > 0 {
		t.Errorf("the second host got %d requests", seen["second"])
	}
	if strings.Contains(env.logs.String(), value) {
		t.Error("the header's value is in the logs")
	}
}

// TestRequestHeadersFromTheEnvironment: the variable holds a JSON object; anything
// else is refused naming it, without quoting the values.
func TestRequestHeadersFromTheEnvironment(t *testing.T) {
	t.Parallel()
	h, err := ParseRequestHeaders(`{"CF-Access-Client-Id": "id", "CF-Access-Client-Secret": "s"}`)
	if err != nil || len(h) != 2 {
		t.Fatalf("%v, %v", h, err)
	}
	if _, err := ParseRequestHeaders(`CF-Access-Client-Secret=s3cret`); err == nil || strings.Contains(err.Error(), "s3cret") ||
		!strings.Contains(err.Error(), EnvRequestHeaders) {
		t.Errorf("a value that is not JSON: %v", err)
	}
	for name, want := range map[string]string{
		"authorization": "sets the header Authorization itself", "token": "sets the header Token itself",
		"Content-Length": "itself", "Bad Header": "not a valid header name", "X-Ok": "",
	} {
		if got := CheckRequestHeader(name, "v"); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("header %q: %q, want %q", name, got, want)
		}
	}
	if got := CheckRequestHeader("X-Ok", "a\r\nInjected: 1"); !strings.Contains(got, "line break") {
		t.Errorf("a value with a line break: %q", got)
	}
}

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
