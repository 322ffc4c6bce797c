package provider

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testnet"
)

// TestNetwork_errorsLeadWithTheCause: a request that gets no answer leads with
// what happened, where, and the setting to check: a refused connection, and a
// platform that never answers (bounded to two attempts of request_timeout).
func TestNetwork_errorsLeadWithTheCause(t *testing.T) {
	t.Parallel()
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulator(t)
		closed := testnet.ClosedAddress(t)
		cfg := emu.config()
		cfg.PlatformURL = "http://" + closed
		expectPlanError(t, providerBlock(cfg)+`data "mediaplatform_health" "test" {}`,
			errorPattern("Nothing accepts connections at "+closed+" (from platform_url): check platform_url"))
	})
	t.Run("no answer", func(t *testing.T) {
		t.Parallel()
		emu, proxy := newProxiedTestEmulator(t, "a silent platform")
		proxy.Add(faultproxy.Fault{Path: `^/auth$`, Latency: time.Minute})
		start := time.Now()
		expectPlanError(t, providerConfigPlus(emu, `request_timeout = "1s"`)+`data "mediaplatform_health" "test" {}`,
			errorPattern("Nothing answered at", "(from platform_url) within 1s × 2 attempt(s): check platform_url"))
		if d := time.Since(start); d > 45*time.Second {
			t.Errorf("the failure took %v: the attempts were not bounded", d)
		}
	})
}

// TestErrors_leadWithTheCause: an answer the platform gave leads with its cause
// and the setting to fix, before the object that failed and the platform's words:
// credentials refused (platform token), permission (administrator API), a rate limit
// past the retry budget, and a server error.
func TestErrors_leadWithTheCause(t *testing.T) {
	t.Parallel()
	problem := func(status int, code string) *faultproxy.Answer {
		return &faultproxy.Answer{
			Status: status,
			Header: http.Header{"Content-Type": {"application/problem+json"}, "Retry-After": {"3600"}},
			Body:   fmt.Sprintf(`{"status": %d, "code": %q, "message": "injected"}`, status, code),
		}
	}
	for _, tc := range []struct {
		name   string
		answer *faultproxy.Answer
		lead   string
	}{
		{"credentials refused", problem(http.StatusUnauthorized, "auth/UNAUTHORIZED"),
			"The platform did not accept the access token of the platform user `username`, even after a fresh login. Check username, password"},
		{"permission", problem(http.StatusForbidden, "publishing/FORBIDDEN"),
			"The platform refused the operation (HTTP 403): the credentials are valid but not allowed to do this."},
		{"rate limit", problem(http.StatusTooManyRequests, "publishing/TOO_MANY_REQUESTS"),
			"The platform is limiting the request rate (HTTP 429) and asked to wait 1h0m0s, longer than the provider spends on retries."},
		{"server error", problem(http.StatusInternalServerError, "publishing/INTERNAL"),
			"The platform failed with HTTP 500, a fault on its side rather than in the configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulator(t, "an answer with a cause")
			proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/lead-`, Respond: tc.answer})
			if tc.answer.Status == http.StatusUnauthorized {
				// The injected 401 declared the first token dead, so the provider rightly
				// did not remove it; the emulator never heard that: expire it there.
				t.Cleanup(func() { emu.control(t, "expiring the token the 401 declared dead").Expire(true, false) })
			}
			expectPlanError(t, emu.providerConfig()+`data "mediaplatform_score" "test" { id = "lead-1" }`,
				errorPattern("Unable to read score", tc.lead, `Score "lead-1" could not be read`, "Cause:"))
		})
	}
}

// forwardProxy is a corporate forward proxy for the tests: it forwards requests for
// any host to the emulator at target (keeping the Host the client asked for, so the
// platform's links name it too), or answers with a page of its own when refuse says so.
func forwardProxy(t *testing.T, target string, refuse func(*http.Request) (status int, page string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, page := refuse(r); status != 0 {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, page)
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Scheme, out.URL.Host = "http", target
		out.Host = r.Host
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAccErrors_proxyLeads: behind a forward proxy (HTTP_PROXY), what the proxy did leads the
// error, not a cause at the platform: a proxy that is down, one that blocks the host
// with its own 403 page, and one that cannot resolve a mistyped host (its 503 page).
func TestAccErrors_proxyLeads(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulatorWith(t, "addresses only a proxy resolves", emulator.Options{RenderDelay: testRenderDelay})
	emuHost := strings.TrimPrefix(emu.URL, "http://")
	_, port, _ := net.SplitHostPort(emuHost)
	// Host names that this machine cannot resolve: only the proxy reaches them (and
	// loopback addresses would bypass any proxy).
	cfg := emu.config()
	for _, u := range []*string{&cfg.AdminURL, &cfg.PlatformURL} {
		*u = strings.Replace(*u, emuHost, "platform.test:"+port, 1)
	}
	config := providerBlock(cfg) + fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
`, accDomain())
	const blocked = "<!DOCTYPE html><html><head><title>Access denied</title></head><body>The requested URL is blocked by policy.</body></html>"
	const unresolved = "<!DOCTYPE html><html><head><title>ERROR</title></head><body>Unable to determine IP address from host name</body></html>"
	proxied := func(t *testing.T, refuse func(*http.Request) (int, string)) *workspace {
		proxy := forwardProxy(t, emuHost, refuse)
		w := newWorkspace(t, emu, "")
		w.writeProvider(config, "")
		w.env = []string{"HTTP_PROXY=" + proxy.URL}
		return w
	}
	failing := func(t *testing.T, w *workspace) string {
		out, err := w.command("apply", "-auto-approve").CombinedOutput()
		if err == nil {
			t.Fatalf("the apply succeeded:\n%s", out)
		}
		return string(out)
	}

	t.Run("through the proxy", func(t *testing.T) {
		w := proxied(t, func(*http.Request) (int, string) { return 0, "" })
		w.run("apply", "-auto-approve")
		w.run("destroy", "-auto-approve")
	})
	t.Run("the proxy blocks the host", func(t *testing.T) {
		w := proxied(t, func(*http.Request) (int, string) { return http.StatusForbidden, blocked })
		out := failing(t, w)
		want := errorPattern("An HTML page answered HTTP 403 for the address in admin_url (platform.test:"+port+", through the proxy at",
			"(from HTTP_PROXY)), not the platform's API", "whether the proxy lets this machine reach that host")
		if !want.MatchString(out) || strings.Contains(out, "not allowed") || strings.Contains(out, "not an administrator") {
			t.Errorf("the proxy's 403 page does not lead, or the credentials are blamed:\n%s", out)
		}
	})
	t.Run("the proxy cannot resolve the host", func(t *testing.T) {
		w := proxied(t, func(*http.Request) (int, string) { return http.StatusServiceUnavailable, unresolved })
		w.writeProvider(strings.Replace(config, "}\n", "  max_retries = 1\n}\n", 1), "")
		out := failing(t, w)
		want := errorPattern("An HTML page answered HTTP 503 for the address in admin_url", "through the proxy at", "(from HTTP_PROXY)")
		if !want.MatchString(out) || strings.Contains(out, "fault on its side") {
			t.Errorf("the proxy's 503 page does not lead, or the platform is blamed:\n%s", out)
		}
	})
	t.Run("the proxy is down", func(t *testing.T) {
		down := testnet.ClosedAddress(t)
		w := newWorkspace(t, emu, "")
		w.writeProvider(config, "")
		w.env = []string{"HTTP_PROXY=http://" + down}
		out := failing(t, w)
		want := errorPattern("The proxy at "+down+" (from HTTP_PROXY) could not be reached", "platform.test:"+port+" (from admin_url)")
		if !want.MatchString(out) || strings.Contains(out, "Nothing accepts connections at platform.test") {
			t.Errorf("a proxy that is down does not lead:\n%s", out)
		}
	})
}

// TestAccErrors_wrongAddressesNameTheirSetting: an address that reaches something
// other than the platform's API leads with the setting it came from and what answered
// there: publishing_url set to the administrator API's address, and a plain web
// server (404 pages for GET, 501 for POST) at platform_url and at admin_url.
func TestAccErrors_wrongAddressesNameTheirSetting(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "addresses of the wrong services", emulator.Options{RenderDelay: testRenderDelay})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		status := http.StatusNotFound
		if r.Method != http.MethodGet {
			status = http.StatusNotImplemented
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "<!DOCTYPE HTML><html><head><title>Error response</title></head><body><h1>Error response</h1>"+
			"<p>Error code: %d</p></body></html>", status)
	}))
	t.Cleanup(web.Close)
	score := fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL(accName()))
	settings := `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`
	adminAsPublishing := emu.config()
	adminAsPublishing.PublishingURL = adminAsPublishing.AdminURL
	webAsPlatform := emu.config()
	webAsPlatform.PlatformURL = web.URL
	webAsAdmin := emu.config()
	webAsAdmin.AdminURL = web.URL + "/api/v1"
	webHost := strings.TrimPrefix(web.URL, "http://")
	for _, tc := range []struct {
		name   string
		config string
		want   *regexp.Regexp
	}{
		{"publishing_url at the administrator API", providerBlock(adminAsPublishing) + score,
			errorPattern("The address in publishing_url does not lead to the platform's API: the administrator API (its "+
				"error code admin/NOT_FOUND) answered 404 for /scores", "publishing_url should be the publishing service's "+
				"address, "+emu.adminURL()+"/apis/media.publishing;version=2;realm=global")},
		{"a web server at platform_url", providerBlock(webAsPlatform) + score,
			errorPattern("The address in platform_url does not lead to the platform's API: a web server's HTML page, not " +
				"the platform's API (whose errors are JSON) answered 404 for /auth")},
		{"a web server at admin_url", providerBlock(webAsAdmin) + settings,
			errorPattern("An HTML page answered HTTP 501 for the address in admin_url (" + webHost + ")")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps:                    []resource.TestStep{{Config: tc.config, ExpectError: tc.want}},
			})
		})
	}
}

// TestNetworkLeadStaleConnection: a request lost on a kept-alive connection the
// platform closed, and not sent again, says so; it does not send the user to check the
// address and the network.
func TestNetworkLeadStaleConnection(t *testing.T) {
	t.Parallel()
	lead := networkLead(&client.NetworkError{Method: http.MethodPost, Path: "/scores", Host: "127.0.0.1:8443",
		Setting: "publishing_url", Kind: client.NetworkStaleConnection})
	if !strings.Contains(lead, "closed a connection kept open from an earlier request") ||
		strings.Contains(lead, "check publishing_url") {
		t.Errorf("lead %q", lead)
	}
}
