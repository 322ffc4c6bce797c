package cimodels

// The recipes of the guide "Corporate networks" that go through a forward proxy: the
// path check with curl, and the CI job with every setting in the environment, both
// behind a proxy that wants a login and a gateway that demands a client certificate
// and access headers.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// The proxy's login in the guide's recipes, with characters that must be
// percent-encoded in the proxy's address.
const proxyUser, proxyPassword = "ci+runner", "p@ss:w0rd/1"

// guideDir is the guide's example directory.
var guideDir = filepath.Join("..", "..", "examples", "guides", "corporate-networks")

// ciGuideDir is the example directory of the guide "Running in CI", which holds the
// CI recipe (ci-apply.sh) that the corporate guide's CI job runs.
var ciGuideDir = filepath.Join("..", "..", "examples", "guides", "running-in-ci")

// connectProxy is a forward proxy for HTTPS as a corporate one is: it answers CONNECT
// only, 407 with a Basic challenge unless the request carries the login user and
// password, and tunnels every host it is asked for to target (so that host names only
// it resolves reach the emulator). It counts the tunnels it opened.
func connectProxy(t *testing.T, target, user, password string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var tunnels atomic.Int32
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "this proxy tunnels HTTPS only", http.StatusMethodNotAllowed)
			return
		}
		if r.Header.Get("Proxy-Authorization") != want {
			w.Header().Set("Proxy-Authenticate", `Basic realm="corporate proxy"`)
			http.Error(w, "proxy login required", http.StatusProxyAuthRequired)
			return
		}
		upstream, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(r.Context(), "tcp", target)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			_ = upstream.Close()
			http.Error(w, "no hijacking", http.StatusInternalServerError)
			return
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			_ = upstream.Close()
			return
		}
		tunnels.Add(1)
		_, _ = conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		go func() {
			_, _ = io.Copy(upstream, buf)
			_ = upstream.Close()
		}()
		go func() {
			_, _ = io.Copy(conn, upstream)
			_ = conn.Close()
		}()
	}))
	t.Cleanup(srv.Close)
	return srv, &tunnels
}

// proxyURL is the proxy's address with the login in it, percent-encoded as the guide
// says.
func proxyURL(proxy *httptest.Server, user, password string) string {
	u, _ := url.Parse(proxy.URL)
	u.User = url.UserPassword(user, password)
	return u.String()
}

// writeGuideFiles writes the gateway's CA, the client certificate and its key where
// the guide's recipes read them.
func writeGuideFiles(t *testing.T, dir, serverPEM, cert, key string) {
	t.Helper()
	for name, content := range map[string]string{"ca.pem": serverPEM, "client.pem": cert, "client-key.pem": key} {
		acctest.WriteFile(t, filepath.Join(dir, name), content)
	}
}

// TestCorporateGuide_checkThePathWithCurl runs the guide's check-path.sh with curl:
// with the certificate, key, CA and access headers it gets the platform's token
// service, directly and through a proxy whose login is in HTTPS_PROXY; without the
// proxy's login the proxy's 407 shows, with a wrong header the gateway's 403 page.
func TestCorporateGuide_checkThePathWithCurl(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: the guide's curl recipe cannot run", tool)
		}
	}
	ca := testca.New(t, "gateway CA")
	cert, key := ca.Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	emu, serverPEM := acctest.StartGateway(t, ca, emulator.Options{RenderDelay: acctest.RenderDelay})
	host := strings.TrimPrefix(emu.URL, "https://")
	_, port, _ := net.SplitHostPort(host)
	proxy, tunnels := connectProxy(t, host, proxyUser, proxyPassword)
	dir := t.TempDir()
	writeGuideFiles(t, dir, serverPEM, cert, key)
	script, err := os.ReadFile(filepath.Join(guideDir, "check-path.sh"))
	if err != nil {
		t.Fatal(err)
	}
	acctest.WriteFile(t, filepath.Join(dir, "check-path.sh"), string(script))

	run := func(env ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), "bash", "check-path.sh")
		cmd.Dir = dir
		cmd.Env = append(acctest.CleanEnv(), "CA_CERT_FILE=ca.pem", "CLIENT_CERT_FILE=client.pem", "CLIENT_KEY_FILE=client-key.pem",
			"ACCESS_CLIENT_ID=terraform-ci", "ACCESS_CLIENT_SECRET="+acctest.GatewaySecret)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	const gatewayName = "gateway.example.com" // only the proxy resolves it (to the emulator)

	if out, err := run("GATEWAY=" + emu.URL); err != nil || !strings.Contains(out, `"_links"`) {
		t.Errorf("directly: %v\n%s", err, out)
	}
	if out, err := run("GATEWAY=https://"+gatewayName+":"+port, "HTTPS_PROXY="+proxyURL(proxy, proxyUser, proxyPassword)); err != nil ||
		!strings.Contains(out, `"_links"`) {
		t.Errorf("through the proxy with its login: %v\n%s", err, out)
	}
	if tunnels.Load() == 0 {
		t.Error("the proxy opened no tunnel: the request did not go through it")
	}
	if out, err := run("GATEWAY=https://"+gatewayName+":"+port, "HTTPS_PROXY="+proxy.URL); err == nil || !strings.Contains(out, "407") {
		t.Errorf("through the proxy without its login: want curl to fail naming the 407: %v\n%s", err, out)
	}
	if out, err := run("GATEWAY="+emu.URL, "ACCESS_CLIENT_SECRET=wrong"); err == nil || !strings.Contains(out, "403 Forbidden") {
		t.Errorf("with a wrong access header: want the gateway's 403 page: %v\n%s", err, out)
	}
}

// TestAccCorporateGuide_ciRecipeFromTheEnvironment runs the guide's CI recipe as a CI job does:
// ci-env.sh with the job's secrets and settings in the environment, the configuration
// ci/main.tf with an empty provider block, through a proxy whose login is built into
// HTTPS_PROXY, to a gateway that demands a client certificate and access headers. The
// apply publishes every score, a second run changes nothing.
func TestAccCorporateGuide_ciRecipeFromTheEnvironment(t *testing.T) {
	newWorkspace := acctest.Workspaces(t)
	t.Parallel()
	for _, tool := range []string{"bash", "jq", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: the guide's CI recipe cannot run", tool)
		}
	}
	ca := testca.New(t, "gateway CA")
	cert, key := ca.Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	emu, serverPEM := acctest.StartGateway(t, ca, emulator.Options{RenderDelay: acctest.RenderDelay})
	ctl := emu.Emulator
	host := strings.TrimPrefix(emu.URL, "https://")
	_, port, _ := net.SplitHostPort(host)
	proxy, tunnels := connectProxy(t, host, proxyUser, proxyPassword)

	w := newWorkspace(t, emu, "")
	configuration, err := os.ReadFile(filepath.Join(guideDir, "ci", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	acctest.WriteFile(t, filepath.Join(w.Dir, "main.tf"), string(configuration))
	acctest.WriteFile(t, filepath.Join(w.Dir, "versions.tf"), `terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
`)
	for name, dir := range map[string]string{"ci-env.sh": guideDir, "ci-apply.sh": ciGuideDir} {
		script, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		acctest.WriteFile(t, filepath.Join(w.Dir, name), string(script))
	}
	writeGuideFiles(t, w.Dir, serverPEM, cert, key)
	headers, _ := json.Marshal(map[string]string{"CF-Access-Client-Id": "terraform-ci", acctest.GatewayHeader: acctest.GatewaySecret})
	var scores []string
	for i := range 3 {
		alias := fmt.Sprintf("env-%02d", i)
		scores = append(scores, fmt.Sprintf("%q = %q", alias, acctest.ScoreURL(alias)))
	}
	cfg := emu.Config
	w.Env = []string{
		"GATEWAY=https://gateway.example.com:" + port, "PROXY=" + strings.TrimPrefix(proxy.URL, "http://"),
		"PROXY_USER=" + proxyUser, "PROXY_PASSWORD=" + proxyPassword,
		"CA_CERT_FILE=ca.pem", "CLIENT_CERT_FILE=client.pem", "CLIENT_KEY_FILE=client-key.pem",
		"MEDIAPLATFORM_REQUEST_HEADERS=" + string(headers),
		"MEDIAPLATFORM_ADMIN_USERNAME=" + cfg.AdminUsername, "MEDIAPLATFORM_ADMIN_PASSWORD=" + cfg.AdminPassword,
		"MEDIAPLATFORM_CLIENT_ID=" + cfg.ClientID, "MEDIAPLATFORM_CLIENT_SECRET=" + cfg.ClientSecret,
		"MEDIAPLATFORM_USERNAME=" + cfg.Username, "MEDIAPLATFORM_PASSWORD=" + cfg.Password,
		"TF_VAR_scores={" + strings.Join(scores, ", ") + "}", "APPLY_TIME_LIMIT=120",
		"PATH=" + acctest.CLIDir(t, w.Terraform) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	ciJob := func() string {
		cmd := w.Command("version") // the workspace's environment
		cmd.Args = []string{"bash", "ci-env.sh"}
		if cmd.Path, err = exec.LookPath("bash"); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) || err != nil {
			t.Fatalf("the CI job failed: %v\n%s", err, out)
		}
		return string(out)
	}
	ciJob()
	if n := ctl.Stats().Scores; n != 3 {
		t.Errorf("after the CI job the platform holds %d scores, want 3", n)
	}
	if tunnels.Load() == 0 {
		t.Error("the proxy opened no tunnel: the provider did not go through it")
	}
	if out := ciJob(); !strings.Contains(out, "Resources: 0 added, 0 changed, 0 destroyed") {
		t.Errorf("the second run of the CI job changed something:\n%s", out)
	}
	// Destroy with the settings ci-env.sh exports, as a later job would.
	w.Env = append(w.Env,
		"MEDIAPLATFORM_ADMIN_URL=https://gateway.example.com:"+port+"/api/v1",
		"MEDIAPLATFORM_PLATFORM_URL=https://gateway.example.com:"+port,
		"MEDIAPLATFORM_PUBLISHING_URL=https://gateway.example.com:"+port+"/api/v1/apis/media.publishing;version=2;realm=global",
		"MEDIAPLATFORM_CA_CERT_PEM="+serverPEM, "MEDIAPLATFORM_CLIENT_CERT_PEM="+cert, "MEDIAPLATFORM_CLIENT_KEY_PEM="+key,
		"HTTPS_PROXY="+proxyURL(proxy, proxyUser, proxyPassword))
	w.Run("destroy", "-auto-approve")
	if n := ctl.Stats().Scores; n != 0 {
		t.Errorf("after destroy the platform holds %d scores", n)
	}
}

// TestAccCorporateGuide_stoppedByItsTimeLimit runs the guide "Corporate networks" as a user does: its
// configuration with the certificate files and the service token from variables, and
// its CI script, behind a gateway that demands both. The first run is stopped by its
// time limit (timeout's SIGTERM to the process group) while scores render; the state
// then holds every score the platform holds and no token is left; the second run
// finishes without a duplicate.
func TestAccCorporateGuide_stoppedByItsTimeLimit(t *testing.T) {
	newWorkspace := acctest.Workspaces(t)
	t.Parallel()
	ca := testca.New(t, "gateway CA")
	cert, key := ca.Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	emu, serverPEM := acctest.StartGateway(t, ca, emulator.Options{RenderDelay: 2 * time.Second})
	ctl := emu.Emulator
	guide := filepath.Join("..", "..", "examples", "guides", "corporate-networks")
	example, err := os.ReadFile(filepath.Join(guide, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(ciGuideDir, "ci-apply.sh"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, emu, "")
	acctest.WriteFile(t, filepath.Join(w.Dir, "main.tf"), string(example))
	acctest.WriteFile(t, filepath.Join(w.Dir, "versions.tf"), `terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
`)
	acctest.WriteFile(t, filepath.Join(w.Dir, "ci-apply.sh"), string(script))
	for name, content := range map[string]string{"ca.pem": serverPEM, "client.pem": cert, "client-key.pem": key} {
		acctest.WriteFile(t, filepath.Join(w.Dir, name), content)
	}
	var scores []string
	for i := range 12 {
		scores = append(scores, fmt.Sprintf("%q = %q", fmt.Sprintf("ci-%02d", i), acctest.ScoreURL(fmt.Sprintf("ci-%02d", i))))
	}
	cfg := emu.Config
	w.Env = []string{
		// The example's addresses are the gateway's, from its address alone.
		"TF_VAR_gateway=" + emu.URL,
		"MEDIAPLATFORM_ADMIN_USERNAME=" + cfg.AdminUsername, "MEDIAPLATFORM_ADMIN_PASSWORD=" + cfg.AdminPassword,
		"MEDIAPLATFORM_CLIENT_ID=" + cfg.ClientID, "MEDIAPLATFORM_CLIENT_SECRET=" + cfg.ClientSecret,
		"MEDIAPLATFORM_USERNAME=" + cfg.Username, "MEDIAPLATFORM_PASSWORD=" + cfg.Password,
		"TF_VAR_ca_cert_file=ca.pem", "TF_VAR_client_cert_file=client.pem", "TF_VAR_client_key_file=client-key.pem",
		"TF_VAR_access_client_id=terraform-ci", "TF_VAR_access_client_secret=" + acctest.GatewaySecret,
		"TF_VAR_scores={" + strings.Join(scores, ", ") + "}",
		"PATH=" + acctest.CLIDir(t, w.Terraform) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	ciApply := func(limit string) (string, int) {
		cmd := w.Command("version") // the workspace's environment
		cmd.Args = []string{"bash", "ci-apply.sh"}
		cmd.Path, err = exec.LookPath("bash")
		if err != nil {
			t.Skip("bash is not on PATH")
		}
		cmd.Env = append(cmd.Env, "APPLY_TIME_LIMIT="+limit)
		out, err := cmd.CombinedOutput()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	out, code := ciApply("4")
	if code != 124 || !strings.Contains(out, "stopped at its time limit") {
		t.Fatalf("the first run was not stopped by its time limit (exit %d):\n%s", code, out)
	}
	held := ctl.Stats().Scores
	list := strings.Fields(w.Run("state", "list"))
	if len(list) != held {
		t.Errorf("after the time limit the platform holds %d scores and the state %d:\n%s", held, len(list), out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for ctl.Stats().LiveTokens != 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := ctl.Stats().LiveTokens; n != 0 {
		t.Errorf("after the time limit %d platform tokens are live", n)
	}
	t.Logf("stopped at its time limit with %d of 12 scores published, all in the state", held)
	if out, code = ciApply("120"); code != 0 {
		t.Fatalf("the second run failed (exit %d):\n%s", code, out)
	}
	if n := ctl.Stats().Scores; n != 12 {
		t.Errorf("after the second run the platform holds %d scores, want 12", n)
	}
	w.Run("destroy", "-auto-approve")
}
