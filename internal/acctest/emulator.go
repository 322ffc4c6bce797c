package acctest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// RenderDelay keeps scores in pending and rendering long enough to be seen, and short
// enough for fast tests.
const RenderDelay = 20 * time.Millisecond

// Target is an in-process emulator a test runs against, at URL.
type Target struct {
	URL      string             // scheme://host the provider reaches it at
	Emulator *emulator.Emulator // its control surface: counts, faults, options
	Config   client.Config      // its addresses and default accounts
}

// Served is the target of an emulator a test serves itself at base (scheme://host),
// e.g. over TLS or behind a proxy.
func Served(emu *emulator.Emulator, base string) *Target {
	return &Target{URL: base, Emulator: emu, Config: EmulatorConfig(emu, base)}
}

// ProviderConfig is a provider block for the target's default accounts.
func (e *Target) ProviderConfig() string { return ProviderBlock(e.Config) }

// StartEmulator starts an emulator with opts on a local listener, closed when the
// test ends. The check that the test left no session or token behind is registered
// before anything of the test's own, so it runs after every other cleanup: by then
// the providers' and the test's clients have all closed, and like the provider binary
// they must have left no session or token behind.
func StartEmulator(t *testing.T, opts emulator.Options) *Target {
	t.Helper()
	srv := emulatortest.Start(t, opts)
	srv.ExpectLoggedOut(t)
	return Served(srv.Emulator, srv.URL)
}

// StartProxied starts an emulator with opts behind the fault-injecting proxy: the
// target's URL is the proxy's.
func StartProxied(t *testing.T, opts emulator.Options) (*Target, *faultproxy.Proxy) {
	t.Helper()
	direct := StartEmulator(t, opts)
	p := faultproxy.Start(direct.URL)
	t.Cleanup(p.Close)
	return Served(direct.Emulator, p.URL), p
}

// GatewayHeader and GatewaySecret are the access header the test gateway demands.
const GatewayHeader, GatewaySecret = "CF-Access-Client-Secret", "gw-7f3a9c1e5b"

// StartGateway serves an emulator with opts over TLS behind a gateway that demands a
// client certificate of ca and the access header, and returns it with its server
// certificate (for ca_cert_pem).
func StartGateway(t *testing.T, ca *testca.CA, opts emulator.Options) (*Target, string) {
	t.Helper()
	opts.Faults.ClientCACertPEM = ca.PEM
	opts.Faults.RequireHeader = &emulator.HeaderRequirement{Name: GatewayHeader, Value: GatewaySecret}
	srv := emulatortest.StartTLS(t, opts)
	return Served(srv.Emulator, srv.URL), srv.CertPEM()
}

// Workspaces skips the test without TF_ACC or a CLI (CLI), and returns how the test
// makes a workspace for the real CLI and the provider binary.
func Workspaces(t *testing.T) func(t *testing.T, target *Target, resources string) *Workspace {
	t.Helper()
	terraformPath := CLI(t)
	return func(t *testing.T, target *Target, resources string) *Workspace {
		t.Helper()
		return NewWorkspace(t, terraformPath, target, resources)
	}
}

// EmulatorConfig is the client configuration of an emulator's default accounts.
func EmulatorConfig(emu *emulator.Emulator, base string) client.Config {
	return client.Config{
		AdminURL: emu.AdminURL(base), AdminUsername: emulatortest.AdminUsername, AdminPassword: emulatortest.AdminPassword,
		PlatformURL: emu.PlatformURL(base), ClientID: emulatortest.ClientID, ClientSecret: emulatortest.ClientSecret,
		Username: emulatortest.Username, Password: emulatortest.Password,
	}
}

// ProviderBlock is a provider block with every setting of cfg that is set.
func ProviderBlock(cfg client.Config) string {
	var b strings.Builder
	b.WriteString("\nprovider \"mediaplatform\" {\n")
	for _, s := range []struct{ name, value string }{
		{"admin_url", cfg.AdminURL}, {"admin_username", cfg.AdminUsername}, {"admin_password", cfg.AdminPassword},
		{"platform_url", cfg.PlatformURL}, {"client_id", cfg.ClientID}, {"client_secret", cfg.ClientSecret},
		{"basic_token", cfg.BasicToken}, {"username", cfg.Username}, {"password", cfg.Password},
		{"publishing_url", cfg.PublishingURL}, {"publishing_service", cfg.PublishingService},
		{"registry_url", cfg.RegistryURL},
	} {
		if s.value != "" {
			fmt.Fprintf(&b, "  %s = %q\n", s.name, s.value)
		}
	}
	b.WriteString("}\n")
	return b.String()
}
