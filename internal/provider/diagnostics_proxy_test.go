package provider

// What a user behind a corporate forward proxy reads when the proxy refuses the
// tunnel to the platform (a block policy, a login it wants) or is bypassed by NO_PROXY.

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testnet"
)

// refusingProxy is a forward proxy that answers every CONNECT with status, as a
// corporate proxy does: 403 with its block page, 407 with a Basic challenge. It counts
// the CONNECTs it answered.
func refusingProxy(t *testing.T, status int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var connects atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "this proxy tunnels HTTPS only", http.StatusMethodNotAllowed)
			return
		}
		connects.Add(1)
		if status == http.StatusProxyAuthRequired {
			w.Header().Set("Proxy-Authenticate", `Basic realm="corporate proxy"`)
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, "<html><body>%s</body></html>", http.StatusText(status))
	}))
	t.Cleanup(srv.Close)
	return srv, &connects
}

// TestAccErrors_refusedTunnels: through HTTPS_PROXY, a proxy that answers CONNECT with 403 or
// 407 (with and without a login in HTTPS_PROXY), and NO_PROXY naming a host that only
// the proxy reaches: each failure leads with the proxy, its variable and what it
// answered, or with NO_PROXY, once per cause, and a refusal is not retried.
func TestAccErrors_refusedTunnels(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulatorWith(t, "addresses only a proxy reaches", emulator.Options{RenderDelay: testRenderDelay})
	emuHost := strings.TrimPrefix(emu.URL, "http://")
	_, port, _ := net.SplitHostPort(emuHost)
	cfg := emu.config()
	for _, u := range []*string{&cfg.AdminURL, &cfg.PlatformURL} {
		// A host name only the proxy could resolve, over HTTPS: the client asks the
		// proxy for a tunnel.
		*u = strings.Replace(strings.Replace(*u, emuHost, "platform.test:"+port, 1), "http://", "https://", 1)
	}
	resources := fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
data "mediaplatform_score_count" "all" {}
data "mediaplatform_health" "test" {}
`, accScoreURL("proxy-"+accName()))
	config := providerBlock(cfg) + resources
	host := "platform.test:" + port
	// An address where nothing listens, named in NO_PROXY: the request goes there
	// directly, and this machine's resolver is never asked for a name.
	closed := testnet.ClosedAddress(t)
	direct := cfg
	direct.AdminURL = strings.Replace(cfg.AdminURL, host, closed, 1)
	direct.PlatformURL = strings.Replace(cfg.PlatformURL, host, closed, 1)
	for _, tc := range []struct {
		name   string
		status int
		login  bool
		env    []string
		lead   string
	}{
		{"a block policy's 403", http.StatusForbidden, false, nil,
			"The proxy at {proxy} (from HTTPS_PROXY) refused to open a tunnel to " + host + " (from platform_url): it answered 403 Forbidden"},
		{"a 407 without a login", http.StatusProxyAuthRequired, false, nil,
			"The proxy at {proxy} (from HTTPS_PROXY) wants a login (HTTP 407 Proxy Authentication Required), so the request for " +
				host + " (from platform_url) never reached the platform: put the proxy's user and password in HTTPS_PROXY"},
		{"a 407 for a wrong login", http.StatusProxyAuthRequired, true, nil,
			"The proxy at {proxy} (from HTTPS_PROXY) refused the login in HTTPS_PROXY (HTTP 407 Proxy Authentication Required)"},
		{"NO_PROXY names the host", http.StatusForbidden, false, []string{"NO_PROXY=localhost,127.0.0.0/8"},
			"The request for " + closed + " (from platform_url) went straight to the host, past the proxy in HTTPS_PROXY, " +
				`because NO_PROXY names it ("127.0.0.0/8"), and failed: nothing accepts connections there. If only the proxy ` +
				"reaches the platform, remove that entry from NO_PROXY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy, connects := refusingProxy(t, tc.status)
			proxyAddr := proxy.URL
			if tc.login {
				u, _ := url.Parse(proxy.URL)
				u.User = url.UserPassword("ci", "wrong")
				proxyAddr = u.String()
			}
			w := newWorkspace(t, emu, "")
			if tc.env != nil {
				w.writeProvider(providerBlock(direct)+resources, "")
			} else {
				w.writeProvider(config, "")
			}
			w.env = append([]string{"HTTPS_PROXY=" + proxyAddr}, tc.env...)
			out, err := w.command("plan").CombinedOutput()
			if err == nil {
				t.Fatalf("the plan succeeded:\n%s", out)
			}
			lead := strings.ReplaceAll(tc.lead, "{proxy}", strings.TrimPrefix(proxy.URL, "http://"))
			if !errorPattern(lead).Match(out) {
				t.Errorf("want the lead %q, got:\n%s", lead, out)
			}
			// One error per cause: every data source and the resource fail on the one
			// token flow, and say so once, with their own context.
			if n := len(regexp.MustCompile(`(?m)^Error: `).FindAll(out, -1)); n > 3 {
				t.Errorf("%d errors for one cause:\n%s", n, out)
			}
			if regexp.MustCompile(`(?m)^\s*Error: platform`).Match(out) {
				t.Errorf("a raw client error without its resource's context:\n%s", out)
			}
			if tc.env == nil && connects.Load() > 3 {
				t.Errorf("the proxy was asked for a tunnel %d times: a refusal is not retried", connects.Load())
			}
		})
	}
}
