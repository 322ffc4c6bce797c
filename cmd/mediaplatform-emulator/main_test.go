package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// binary is the program built by TestMain; buildErr says why there is none.
var (
	binary   string
	buildErr error
)

// TestMain builds the program once for the tests that run it as a process.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mediaplatform-emulator-test")
	if err != nil {
		buildErr = err
	} else if goTool, err := exec.LookPath("go"); err != nil {
		buildErr = err
	} else {
		binary = filepath.Join(dir, "mediaplatform-emulator")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		if out, err := exec.CommandContext(ctx, goTool, "build", "-o", binary, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
			binary = ""
		}
		cancel()
	}
	code := m.Run()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	os.Exit(code)
}

// readFirstLine reads one line from r within a deadline.
func readFirstLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := r.ReadString('\n')
		ch <- result{line, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("reading the first line: %v (read %q)", res.err, res.line)
		}
		return res.line
	case <-time.After(30 * time.Second):
		t.Fatal("no first line within 30s")
		return ""
	}
}

// parseAddresses checks the first line: exactly one JSON object with the three URLs.
func parseAddresses(t *testing.T, line, scheme string) addresses {
	t.Helper()
	if !strings.HasSuffix(line, "}\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("first line %q is not one JSON object", line)
	}
	var raw map[string]string
	if err := json.Unmarshal([]byte(line), &raw); err != nil {
		t.Fatalf("first line %q: %v", line, err)
	}
	if len(raw) != 3 {
		t.Errorf("first line has keys %v, want admin_url, platform_url, publishing_url", raw)
	}
	a := addresses{AdminURL: raw["admin_url"], PlatformURL: raw["platform_url"], PublishingURL: raw["publishing_url"]}
	u, err := url.Parse(a.PlatformURL)
	if err != nil || u.Scheme != scheme || !strings.HasPrefix(u.Host, "127.0.0.1:") || u.Port() == "0" || u.Path != "" {
		t.Errorf("platform_url = %q, want %s://127.0.0.1:<bound port>", a.PlatformURL, scheme)
	}
	if a.AdminURL != a.PlatformURL+"/api/v1" {
		t.Errorf("admin_url = %q, want %q", a.AdminURL, a.PlatformURL+"/api/v1")
	}
	if a.PublishingURL != a.AdminURL+"/apis/media.publishing;version=2;realm=global" {
		t.Errorf("publishing_url = %q", a.PublishingURL)
	}
	return a
}

// checkServes follows GET /auth and logs in to the admin API through the printed addresses.
func checkServes(t *testing.T, client *http.Client, a addresses) {
	t.Helper()
	ctx := t.Context()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.PlatformURL+"/auth", nil)
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET /auth: %v", err)
	}
	var body struct {
		Links struct {
			Self struct {
				Href string `json:"href"`
			} `json:"self"`
		} `json:"_links"`
	}
	err = json.NewDecoder(res.Body).Decode(&body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || body.Links.Self.Href != a.PlatformURL+"/auth" {
		t.Fatalf("GET /auth: status %d, self %q, err %v", res.StatusCode, body.Links.Self.Href, err)
	}
	form := url.Values{"user": {emulatortest.AdminUsername}, "pass": {emulatortest.AdminPassword}, "r": {"createsession"}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, a.AdminURL+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err = client.Do(req)
	if err != nil {
		t.Fatalf("POST /login: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /login: status %d", res.StatusCode)
	}
}

// TestProgram runs the built program, talks to it and stops it with a signal.
func TestProgram(t *testing.T) {
	t.Parallel()
	if binary == "" {
		t.Fatal("the program was not built:", buildErr)
	}
	for _, tc := range []struct {
		name   string
		tls    bool
		signal syscall.Signal
	}{
		{"http SIGTERM", false, syscall.SIGTERM},
		{"http SIGINT", false, syscall.SIGINT},
		{"https SIGTERM", true, syscall.SIGTERM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"-listen", "127.0.0.1:0"}
			caFile := filepath.Join(t.TempDir(), "ca.pem")
			if tc.tls {
				args = append(args, "-tls", "-ca-cert-file", caFile)
			}
			cmd := exec.CommandContext(t.Context(), binary, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewReader(stdout)
			scheme, client := "http", &http.Client{Timeout: 10 * time.Second}
			if tc.tls {
				scheme = "https"
			}
			a := parseAddresses(t, readFirstLine(t, out), scheme)

			if tc.tls {
				caPEM, err := os.ReadFile(caFile)
				if err != nil {
					t.Fatal(err)
				}
				pool := x509.NewCertPool()
				if !pool.AppendCertsFromPEM(caPEM) {
					t.Fatalf("%s holds no certificate", caFile)
				}
				client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
				// Without the CA, verification fails: the server really is on its own certificate.
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, a.PlatformURL+"/auth", nil)
				if res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req); err == nil {
					res.Body.Close()
					t.Error("a client without the CA verified the certificate")
				}
				// The certificate names localhost too.
				local := strings.Replace(a.PlatformURL, "127.0.0.1", "localhost", 1)
				checkServes(t, client, addresses{PlatformURL: local, AdminURL: local + "/api/v1"})
			}
			checkServes(t, client, a)

			if err := cmd.Process.Signal(tc.signal); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(out)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("exit after %v: %v; stderr %s", tc.signal, err, stderr.String())
			}
			for _, want := range []string{"admin / admin-secret", "alice / alice-secret", "viewer / viewer-secret", "terraform / terraform-secret"} {
				if !bytes.Contains(rest, []byte(want)) {
					t.Errorf("the output after the first line lacks %q:\n%s", want, rest)
				}
			}
			if tc.tls && !bytes.Contains(rest, []byte("-----BEGIN CERTIFICATE-----")) {
				t.Errorf("the output lacks the CA PEM:\n%s", rest)
			}
		})
	}
}

// TestRun drives run in-process: the first line arrives before serving starts and
// ending the context stops the server with no error.
func TestRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-publishing-service", "scores.svc", "-render-delay", "0"}, w, io.Discard)
		w.Close()
	}()
	out := bufio.NewReader(r)
	line := readFirstLine(t, out)
	go func() { _, _ = io.Copy(io.Discard, out) }()
	var a addresses
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(a.PublishingURL, "/api/v1/apis/scores.svc;version=2;realm=global") {
		t.Errorf("publishing_url = %q, want the configured service", a.PublishingURL)
	}
	checkServes(t, &http.Client{Timeout: 10 * time.Second}, a)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after the context ended")
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	c, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.listen != "127.0.0.1:8080" || c.tls || c.tokenLifetime != 900*time.Second || c.sessionIdle != 30*time.Minute ||
		c.renderDelay != 500*time.Millisecond || c.publishingService != "media.publishing" {
		t.Errorf("defaults = %+v", c)
	}
	o := c.options()
	if o.TokenLifetime != 900*time.Second || o.RenderDelay != 500*time.Millisecond {
		t.Errorf("options = %+v", o)
	}

	c, err = parseFlags([]string{"-token-lifetime", "2s", "-session-idle", "1m", "-render-delay", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o := c.options(); o.TokenLifetime != 2*time.Second || o.SessionIdle != time.Minute || o.RenderDelay >= 0 {
		t.Errorf("options = %+v; a zero render delay must mean none (negative in Options)", o)
	}

	c, err = parseFlags([]string{"-reading", "queryParamsOnly,countGetOnly", "-reading", "bareLoginToken", "-clock-offset", "-3h"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f := c.options().Faults; strings.Join(f.Readings.Names(), ",") != "queryParamsOnly,countGetOnly,bareLoginToken" ||
		f.ClockOffsetSeconds != -3*3600 {
		t.Errorf("readings and clock offset: %+v", f)
	}

	c, err = parseFlags([]string{"-require-header", "X-Access-Token=a=b c", "-tls", "-client-ca", "ca.pem"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.options().Faults.RequireHeader; h == nil || h.Name != "X-Access-Token" || h.Value != "a=b c" || c.clientCAFile != "ca.pem" {
		t.Errorf("-require-header and -client-ca: %+v, %q", h, c.clientCAFile)
	}

	for _, args := range [][]string{
		{"-client-ca", "ca.pem"},
		{"-require-header", "X-Access-Token"},
		{"-require-header", "=value"},
		{"-require-header", "X Access=value"},
		{"-require-header", "X-Access="},
		{"-require-header", "X-Access= value"},
		{"-require-header", "X-Access=a\nb"},
		{"-require-header", "X-Access=a", "-require-header", "X-Other=b"},
		{"-reading", "fastCounts"},
		{"-clock-offset", "1.5s"},
		{"-ca-cert-file", "ca.pem"},
		{"-token-lifetime", "0s"},
		{"-session-idle", "-1s"},
		{"-render-delay", "-1ms"},
		{"-token-lifetime", "soon"},
		{"-publishing-service", ""},
		{"-publishing-service", "a/b"},
		{"-no-such-flag"},
		{"extra"},
	} {
		_, err := parseFlags(args, io.Discard)
		if !errors.As(err, new(usageError)) {
			t.Errorf("parseFlags(%q) = %v, want a usage error", args, err)
		}
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}

func TestRunListenError(t *testing.T) {
	t.Parallel()
	err := run(t.Context(), []string{"-listen", "127.0.0.1:-1"}, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("run with an invalid address returned no error")
	}
}
