package client

import (
	"net/http"
	"net/http/httptest"
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
