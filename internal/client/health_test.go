package client

import (
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestHealthOfAnyShape: the health call, which the specification calls unreliable,
// reports what a 2xx says whatever its form (field report 3): text "OK" is healthy;
// an answer that says nothing is "unknown", never an error.
func TestHealthOfAnyShape(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "textHealth")
	h, err := c.Health(env.ctx)
	if err != nil || h.Status != "OK" || !h.Healthy || h.Note != "" {
		t.Fatalf("text health: %+v, %v", h, err)
	}
	// An HTML page for the health call alone: unknown, with why; a page on the way
	// (the login) is still the error it is.
	proxied, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Path: `/core/health$`, Respond: blockedPage})
	if h, err := proxied.Health(env.ctx); err != nil || h.Status != healthUnknown || h.Healthy || !strings.Contains(h.Note, "HTML page") {
		t.Errorf("an HTML health page: %+v, %v", h, err)
	}
	for body, want := range map[string]string{
		`{"service":{"healthStatus":"ok","healthVerifier":"default"}}`: "ok",
		`{"status":"UP"}`:     "UP",
		`{"checks":[]}`:       healthUnknown,
		"<html>broken</html>": healthUnknown,
		"":                    healthUnknown,
	} {
		if got := readHealth([]byte(body)); got.Status != want || (want == healthUnknown) != (got.Note != "") {
			t.Errorf("health answer %q: %+v, want status %q", body, got, want)
		}
	}
}
