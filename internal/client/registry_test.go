package client

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestRegistryAddressError: a registry_url where the registry does not answer (a 404
// at the path it always serves) names registry_url and what it should be.
func TestRegistryAddressError(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client(func(cfg *Config) { cfg.RegistryURL = env.srv.URL + "/apis/registry;version=9/nothing" })
	_, err := c.Systems(env.ctx)
	var addrErr *AddressError
	if !errors.As(err, &addrErr) || addrErr.Setting != "registry_url" ||
		!strings.Contains(addrErr.Expected, "/apis/registry;version=0/serviceroots") {
		t.Fatalf("got %v (%+v)", err, addrErr)
	}
}

// TestTemplateValuesAreUTF8Encoded: non-ASCII ids in the registry's URI templates go
// out as percent-encoded UTF-8 (RFC 6570), so the platform reads the id it was given.
func TestTemplateValuesAreUTF8Encoded(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	for id, encoded := range map[string]string{"clip-ü": "clip-%C3%BC", "clip-😀": "clip-%F0%9F%98%80"} {
		_, err := c.AssetModelByID(env.ctx, "interplay-pam", "pam-1", id, "")
		if !IsNotFound(err) || !strings.Contains(err.Error(), id) {
			t.Errorf("asset %q: want the platform's not-found naming it, got %v", id, err)
		}
		if n := p.Count(http.MethodGet, `/assets/`+regexp.QuoteMeta(encoded)+`/model$`); n != 1 {
			t.Errorf("asset %q: %d requests for the path segment %s, want 1; sent: %v", id, n, encoded, p.Requests()[len(p.Requests())-1].Path)
		}
	}
}
