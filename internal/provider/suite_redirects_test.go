package provider

// Redirects by what they carry, through real Terraform: the discovery root (no
// credential) redirected on its own origin, by the emulator's reading and by a real
// nginx in front of the emulator, and an administrator call whose expired session is
// answered by the login page.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// redirectsConfig counts the scores, which takes the platform token, through the
// provider block given.
func redirectsConfig(providerBlock string) string {
	return providerBlock + `
data "mediaplatform_score_count" "all" {}
`
}

// TestAccRedirects_discoveryRootBySlash: the platform answers GET /auth with 301 to
// /auth/ on the same origin (the reading authRootSlash): each provider process follows
// it once, and the plan and apply read the platform.
func TestAccRedirects_discoveryRootBySlash(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "the reading authRootSlash", emulator.Options{RenderDelay: testRenderDelay,
		Faults: emulator.Faults{Readings: emulator.Readings{AuthRootSlash: true}}})
	ctl := emu.control(t, "request counts")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: redirectsConfig(emu.providerConfig()),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.mediaplatform_score_count.all", tfjsonpath.New("total"), knownvalue.Int64Exact(0)),
			},
		}},
	})
	st := ctl.Stats()
	root, slash, grants := st.Requests["GET /auth"], st.Requests["GET /auth/{$}"], st.Logins["oauth"]
	t.Logf("GET /auth %d, GET /auth/ %d, grants %d", root, slash, grants)
	if root == 0 || root != slash || root != grants {
		t.Errorf("GET /auth %d times, GET /auth/ %d times, %d grants: want one of each per provider process", root, slash, grants)
	}
}

// TestAccRedirects_discoveryRootBySlashWrongPassword: behind the same redirect, a
// wrong password is reported as the refused login it is, not as the redirect.
func TestAccRedirects_discoveryRootBySlashWrongPassword(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "the reading authRootSlash", emulator.Options{RenderDelay: testRenderDelay,
		Faults: emulator.Faults{Readings: emulator.Readings{AuthRootSlash: true}}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config:      redirectsConfig(providerConfigWith(emu, emulatortest.AdminPassword, "not-the-password")),
			ExpectError: errorPattern("The platform refused the user's credentials", "check username and password"),
		}},
	})
}

// nginxBinary is Debian's nginx (nginx-light, as .ci/run installs it), or "".
func nginxBinary() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	return ""
}

// startNginx runs nginx in front of upstream (scheme://host) on a loopback port of its
// own, with a location /auth/ as a stock configuration writes it, from a prefix, a
// configuration, a pid file and logs in a temporary directory; it stops at cleanup.
// It returns nginx's scheme://host.
func startNginx(t *testing.T, binary, upstream string) string {
	t.Helper()
	up, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // its workers read the temporary directory, which is root's
	}
	conf := fmt.Sprintf(`%[1]s
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log;
events { worker_connections 64; }
http {
  access_log %[2]s/access.log;
  client_body_temp_path %[2]s/client_body;
  proxy_temp_path %[2]s/proxy;
  fastcgi_temp_path %[2]s/fastcgi;
  uwsgi_temp_path %[2]s/uwsgi;
  scgi_temp_path %[2]s/scgi;
  server {
    listen %[3]s;
    proxy_set_header Host $http_host;
    location /auth/ { proxy_pass http://%[4]s; }
    location / { proxy_pass http://%[4]s; }
  }
}
`, user, dir, addr, up.Host)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), binary, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log"), "-g", "daemon off;")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt) // nginx's fast shutdown (SIGINT)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(context.Background(), "tcp", addr)
		if err == nil {
			_ = conn.Close()
			return base
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited at start:\n%s", log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx does not listen on %s: %v", addr, err)
		}
	}
}

// TestAccRedirects_discoveryBehindNginx: a real nginx (Debian's, nginx-light) in
// front of the emulator, with `location /auth/ { proxy_pass …; }`, answers GET /auth
// with its own 301 to /auth/; the provider follows it on the same origin, and the
// plan and apply read the platform through nginx. Skips where nginx is not installed
// (.ci/run installs it).
func TestAccRedirects_discoveryBehindNginx(t *testing.T) {
	t.Parallel()
	binary := nginxBinary()
	if binary == "" {
		t.Skip("nginx is not installed (Debian: apt-get install nginx-light; .ci/run installs it): the test of the " +
			"discovery behind a real nginx needs it")
	}
	// The platform serves its discovery at /auth/, where nginx sends it.
	direct := newTestEmulatorWith(t, "an emulator behind nginx", emulator.Options{RenderDelay: testRenderDelay,
		Faults: emulator.Faults{Readings: emulator.Readings{AuthRootSlash: true}}})
	ctl := direct.control(t, "request counts")
	front := startNginx(t, binary, direct.URL)

	// nginx itself answers GET /auth, before the platform sees it.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, front+"/auth", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != front+"/auth/" ||
		!strings.HasPrefix(res.Header.Get("Server"), "nginx") {
		t.Fatalf("nginx answered GET /auth with %d to %q (Server %q), want its own 301 to %s/auth/",
			res.StatusCode, res.Header.Get("Location"), res.Header.Get("Server"), front)
	}
	if n := ctl.Stats().Requests["GET /auth"]; n != 0 {
		t.Fatalf("the emulator saw GET /auth %d times: nginx did not answer it", n)
	}

	emu := servedTestEmulator(t, ctl, front)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: redirectsConfig(emu.providerConfig()),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.mediaplatform_score_count.all", tfjsonpath.New("total"), knownvalue.Int64Exact(0)),
			},
		}},
	})
	st := ctl.Stats()
	slash, grants := st.Requests["GET /auth/{$}"], st.Logins["oauth"]
	t.Logf("through nginx: GET /auth/ %d, grants %d, GET /auth at the emulator %d", slash, grants, st.Requests["GET /auth"])
	if slash == 0 || slash != grants || st.Requests["GET /auth"] != 0 {
		t.Errorf("GET /auth/ %d times for %d grants (GET /auth at the emulator %d): want one discovery per provider "+
			"process, each through nginx's redirect", slash, grants, st.Requests["GET /auth"])
	}
}

// TestAccRedirects_expiredSessionToLoginPage: the administrator API answers a call
// whose session idled out with 302 to its login page (the reading loginRedirects); the
// session expires while an apply changes the settings. The provider logs in once more
// and the apply succeeds; no session is left live at the end (startTestEmulator's
// check).
func TestAccRedirects_expiredSessionToLoginPage(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulatorWith(t, "the reading loginRedirects and a session expiring mid-apply",
		emulator.Options{RenderDelay: testRenderDelay, Faults: emulator.Faults{Readings: emulator.Readings{LoginRedirects: true}}})
	ctl := emu.control(t, "session expiry")
	emu.takeSettings(t)
	config := func(domain string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 636 }]
}
`, domain)
	}
	var loginsBefore int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config("CORP")},
			{
				PreConfig: func() {
					loginsBefore = ctl.Stats().Logins["admin"]
					// The session idles out just as the write of the settings arrives.
					proxy.Add(faultproxy.Fault{Method: http.MethodPut, Path: `/externalauth$`, Times: 1,
						Query: func(url.Values) { ctl.Expire(false, true) }})
				},
				Config: config("CORP2"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_external_authentication.test", tfjsonpath.New("domain_name"),
						knownvalue.StringExact("CORP2")),
				},
			},
		},
	})
	st := ctl.Stats()
	t.Logf("logins in the second step and after: %d; PUT /externalauth %d", st.Logins["admin"]-loginsBefore,
		st.Requests["PUT /api/v1/externalauth"])
	if st.Requests["PUT /api/v1/externalauth"] < 3 {
		t.Errorf("PUT /externalauth %d times: want the first apply's, the redirected one and its repetition",
			st.Requests["PUT /api/v1/externalauth"])
	}
}
