package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// TestRunForModuleAuthors starts the emulator as a CI step would: accounts of its
// own, a seed, and an env file that a next step sources. The env file appears once the
// emulator serves, names the addresses and the accounts, and the platform starts
// seeded.
func TestRunForModuleAuthors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	accounts := filepath.Join(dir, "accounts.json")
	seed := filepath.Join(dir, "seed.json")
	envFile := filepath.Join(dir, "emulator.env")
	writeTestFile(t, accounts, `{
  "users": [
    {"name": "ci-admin", "password": "ci-admin-pw", "adminLogin": true, "administrator": true},
    {"name": "ci", "password": "ci-pw", "platform": true, "platformAdmin": true}
  ],
  "clients": [{"id": "ci-app", "secret": "ci-app-secret"}]
}`)
	writeTestFile(t, seed, `{
  "settings": {"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1.corp.example", "port0": "636"},
  "scores": [
    {"scoreUrl": "https://cdn.example/scores/sonata.sib", "scoreId": "sonata"},
    {"scoreUrl": "https://cdn.example/scores/broken.sib", "status": "error"},
    {"scoreUrl": "https://cdn.example/scores/new.sib", "status": "pending"}
  ],
  "commands": [{"type": "publishing:purge", "creator": "ci", "steps": [{"lifecycle": "running", "progress": 50}]}]
}`)
	ctx, cancel := context.WithCancel(t.Context())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-render-delay", "1h", "-accounts", accounts, "-seed", seed,
			"-env-file", envFile}, w, io.Discard)
		w.Close()
	}()
	go func() { _, _ = io.Copy(io.Discard, bufio.NewReader(r)) }()
	env := waitForEnvFile(t, envFile)
	for key, want := range map[string]string{
		"MEDIAPLATFORM_ADMIN_USERNAME": "ci-admin", "MEDIAPLATFORM_ADMIN_PASSWORD": "ci-admin-pw",
		"MEDIAPLATFORM_USERNAME": "ci", "MEDIAPLATFORM_PASSWORD": "ci-pw",
		"MEDIAPLATFORM_CLIENT_ID": "ci-app", "MEDIAPLATFORM_CLIENT_SECRET": "ci-app-secret",
	} {
		if env[key] != want {
			t.Errorf("%s=%q, want %q", key, env[key], want)
		}
	}
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(u string, header http.Header) map[string]any {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		req.Header = header
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", u, res.StatusCode, err)
		}
		return body
	}
	platform := env["MEDIAPLATFORM_PLATFORM_URL"]
	if got := get(platform+"/_emulator/ready", nil); got["ready"] != true {
		t.Errorf("ready: %v", got)
	}
	// The built-in accounts are gone; the file's work.
	login := func(user, pass string) *http.Response {
		t.Helper()
		form := url.Values{"user": {user}, "pass": {pass}, "r": {"createsession"}}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, env["MEDIAPLATFORM_ADMIN_URL"]+"/login",
			strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := login("ci-admin", "ci-admin-pw")
	var session map[string]any
	_ = json.NewDecoder(res.Body).Decode(&session)
	res.Body.Close()
	token, _ := session["token"].(string)
	settings := get(env["MEDIAPLATFORM_ADMIN_URL"]+"/externalauth", http.Header{"token": {token}})
	if settings["domainName"] != "CORP" || settings["server0"] != "dc1.corp.example" || settings["port0"] != "636" {
		t.Errorf("seeded settings: %v", settings)
	}
	if res := login(emulatortest.AdminUsername, emulatortest.AdminPassword); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the built-in admin account logged in: %d", res.StatusCode)
	} else {
		res.Body.Close()
	}
	stats := get(platform+"/_emulator/stats", nil)
	if stats["scores"] != float64(3) {
		t.Errorf("seeded scores: %v", stats["scores"])
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRunRefusesABadSeed: a seed the platform would refuse stops the start, naming
// the part.
func TestRunRefusesABadSeed(t *testing.T) {
	t.Parallel()
	seed := filepath.Join(t.TempDir(), "seed.json")
	writeTestFile(t, seed, `{"scores": [{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "a"}, {"scoreUrl": "ftp://x/b.sib"}]}`)
	err := run(t.Context(), []string{"-listen", "127.0.0.1:0", "-seed", seed}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "seed score 1 (ftp://x/b.sib)") {
		t.Fatalf("got %v", err)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitForEnvFile waits for the env file and parses its KEY=value lines.
func waitForEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			env := map[string]string{}
			for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
				k, v, _ := strings.Cut(line, "=")
				env[k] = v
			}
			return env
		}
		if time.Now().After(deadline) {
			t.Fatalf("no env file after 20 s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
