package client

import (
	"errors"
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
