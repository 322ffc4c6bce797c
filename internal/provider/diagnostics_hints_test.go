package provider

// The leads' hints, done as they say, through the terraform CLI.

import (
	"net"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestAccDiagnosticsHints_misspeltVariableAsMeant: with MEDIAPLATFORM_ADMIN_USERNAM set
// instead of MEDIAPLATFORM_ADMIN_USERNAME, the missing admin_username's lead asks "did
// you mean …?"; the variable it names, set with the same value, makes the apply pass.
func TestAccDiagnosticsHints_misspeltVariableAsMeant(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	cfg := emu.config()
	w := newWorkspace(t, emu, "")
	w.writeProvider("", `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`)
	settings := []string{"MEDIAPLATFORM_ADMIN_URL=" + cfg.AdminURL, "MEDIAPLATFORM_ADMIN_PASSWORD=" + cfg.AdminPassword}
	w.env = append(settings, "MEDIAPLATFORM_ADMIN_USERNAM="+cfg.AdminUsername)
	out, err := w.command("apply", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("the apply without admin_username succeeded:\n%s", out)
	}
	meant := regexp.MustCompile(`is not set[\s\S]*did\s+you\s+mean\s+(MEDIAPLATFORM_[A-Z_]+)\?`).FindStringSubmatch(string(out))
	if meant == nil {
		t.Fatalf("the missing setting's lead names no variable meant:\n%s", out)
	}
	w.env = append(settings, meant[1]+"="+cfg.AdminUsername)
	w.run("apply", "-auto-approve")
	w.run("destroy", "-auto-approve")
}

// TestAccDiagnosticsHints_noProxyNamesTheHost: with HTTP_PROXY naming a proxy that is
// down, the lead says the request "never left this machine" and to "name the
// platform's host in NO_PROXY to reach it directly"; the host that lead names, put in
// NO_PROXY as it is written there, makes the plan pass. The platform is addressed by
// this machine's name, which resolves to the loopback address the emulator listens on:
// net/http sends a request for localhost or a loopback address past any proxy, so an
// address of those would show neither the error nor the hint.
func TestAccDiagnosticsHints_noProxyNamesTheHost(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	name, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if addrs, err := net.DefaultResolver.LookupHost(t.Context(), name); err != nil || !slices.Contains(addrs, "127.0.0.1") {
		t.Skipf("this machine's name %q does not resolve to 127.0.0.1 (%v, %v), where the emulator listens", name, addrs, err)
	}
	emu := newTestEmulator(t)
	listening := strings.TrimPrefix(emu.URL, "http://")
	_, port, _ := net.SplitHostPort(listening)
	cfg := emu.config()
	for _, u := range []*string{&cfg.AdminURL, &cfg.PlatformURL, &cfg.PublishingURL, &cfg.RegistryURL} {
		*u = strings.Replace(*u, listening, net.JoinHostPort(name, port), 1)
	}
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	_ = l.Close()
	w := newWorkspace(t, emu, "")
	w.writeProvider(providerBlock(cfg), `data "mediaplatform_health" "test" {}`+"\n")
	w.env = []string{"HTTP_PROXY=http://" + down}
	out, err := w.command("plan").CombinedOutput()
	if err == nil {
		t.Fatalf("the plan through a proxy that is down succeeded:\n%s", out)
	}
	hint := regexp.MustCompile(`request\s+for\s+(\S+)\s+\(from\s+[a-z_]+\)\s+never\s+left\s+this\s+machine[\s\S]*?` +
		`name\s+the\s+platform's\s+host\s+in\s+NO_PROXY`).FindSubmatch(out)
	if hint == nil {
		t.Fatalf("the lead of a proxy that is down does not say to name the host in NO_PROXY:\n%s", out)
	}
	t.Logf("the lead names %s; NO_PROXY=%s", hint[1], hint[1])
	w.env = append(w.env, "NO_PROXY="+string(hint[1]))
	w.run("plan")
}
