//go:build linux

package provider

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccEphemeralAccessTokenSignals stops runs that hand the ephemeral token to
// another provider configuration (as request_headers), the way users and CI stop
// them, through the real provider binary under the real CLI: Ctrl-C and SIGTERM to
// the process group during an apply, kill -9 of terraform alone, and Ctrl-C during a
// plan. Terraform does not promise to close an ephemeral resource on such a stop; the
// provider process removes the token at its exit all the same, and the platform holds
// no live token afterwards. A clean apply removes it exactly once.
func TestAccEphemeralAccessTokenSignals(t *testing.T) {
	terraformPath := cliForTests(t)
	t.Parallel()
	cliConfig := providerCLIConfig(t)
	const scores = 4
	// config hands the token to the "tool" configuration, which publishes the scores,
	// or reads the platform's health when health is set.
	config := func(emu *testEmulator, health bool) string {
		var b strings.Builder
		b.WriteString(emu.providerConfig())
		b.WriteString(providerConfigPlus(emu, `alias = "tool"
  request_headers = { "X-Tool-Token" = ephemeral.mediaplatform_access_token.tool.access_token }`))
		b.WriteString("ephemeral \"mediaplatform_access_token\" \"tool\" {}\n")
		if health {
			b.WriteString("data \"mediaplatform_health\" \"h\" {\n  provider = mediaplatform.tool\n}\n")
		}
		for i := range scores {
			fmt.Fprintf(&b, "resource \"mediaplatform_score\" \"s%d\" {\n  provider  = mediaplatform.tool\n  score_url = %q\n}\n", i, accScoreURL(accName()))
		}
		return b.String()
	}
	workspaceFor := func(t *testing.T, emu *testEmulator, health bool) *workspace {
		w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: cliConfig, emu: emu}
		writeFile(t, filepath.Join(w.dir, "main.tf"), `
terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
`+config(emu, health))
		return w
	}
	// start starts terraform with args in a process group of its own.
	start := func(t *testing.T, w *workspace, args ...string) (*exec.Cmd, *strings.Builder) {
		cmd := w.command(args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		return cmd, &out
	}
	waitUntil := func(t *testing.T, what string, out *strings.Builder, cond func() bool) {
		for deadline := time.Now().Add(90 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never %s:\n%s", what, out)
			}
		}
	}
	// expectNoLiveToken waits up to 5 s for the platform to hold no live token, and
	// checks that the ephemeral token was granted and removed.
	expectNoLiveToken := func(t *testing.T, ctl *emulator.Emulator, out *strings.Builder) {
		t.Helper()
		gone := false
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if gone = ctl.Stats().LiveTokens == 0; gone {
				break
			}
		}
		st := ctl.Stats()
		t.Logf("password grants %d, removals %d, live tokens %d", st.Logins["oauth"], st.Requests[removalRoute], st.LiveTokens)
		if !gone {
			t.Errorf("5 s after the run the platform holds %d live tokens, want 0 (the ephemeral token was left live):\n%s", st.LiveTokens, out)
		}
	}
	// stopDuringApply starts an apply and returns once the tool configuration has
	// published every score and waits for their rendering: the ephemeral token is open.
	stopDuringApply := func(t *testing.T) (*workspace, *emulator.Emulator, *exec.Cmd, *strings.Builder) {
		emu := newTestEmulatorWith(t, "scores that render for seconds", emulator.Options{RenderDelay: 2 * time.Second})
		ctl := emu.control(t, "scores that render for seconds")
		w := workspaceFor(t, emu, false)
		cmd, out := start(t, w, "apply", "-auto-approve")
		waitUntil(t, "published every score", out, func() bool { return ctl.Stats().Scores >= scores })
		if n := ctl.Stats().Logins["oauth"]; n < 2 {
			t.Fatalf("%d password grants while the scores render, want the ephemeral token's and the tool's own", n)
		}
		return w, ctl, cmd, out
	}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String()+" to the process group during an apply", func(t *testing.T) {
			t.Parallel()
			_, ctl, cmd, out := stopDuringApply(t)
			if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			expectNoLiveToken(t, ctl, out)
		})
	}

	t.Run("kill -9 of terraform during an apply", func(t *testing.T) {
		t.Parallel()
		_, ctl, cmd, out := stopDuringApply(t)
		providers := childrenNamed(cmd.Process.Pid, "terraform-provider-mediaplatform")
		if len(providers) != 2 {
			t.Fatalf("%d provider processes under terraform (pid %d), want 2 (the token's and the tool's)", len(providers), cmd.Process.Pid)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		for _, pid := range providers {
			for start := time.Now(); alive(pid); time.Sleep(100 * time.Millisecond) {
				if time.Since(start) > 15*time.Second {
					t.Fatalf("the provider (pid %d) still runs %s after terraform was killed", pid, time.Since(start).Round(time.Second))
				}
			}
		}
		expectNoLiveToken(t, ctl, out)
	})

	t.Run("Ctrl-C during a plan", func(t *testing.T) {
		t.Parallel()
		emu, proxy := newProxiedTestEmulatorWith(t, "a health answer held back", emulator.Options{RenderDelay: testRenderDelay})
		ctl := emu.control(t, "a health answer held back")
		held := proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Delay: time.Minute})
		w := workspaceFor(t, emu, true)
		cmd, out := start(t, w, "plan")
		waitUntil(t, "read the platform's health", out, func() bool { return proxy.Hits(held) > 0 })
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		expectNoLiveToken(t, ctl, out)
	})

	t.Run("a clean apply", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulatorWith(t, "token removal counts", emulator.Options{RenderDelay: testRenderDelay})
		ctl := emu.control(t, "token removal counts")
		w := workspaceFor(t, emu, false)
		var out strings.Builder
		out.WriteString(w.run("apply", "-auto-approve"))
		expectNoLiveToken(t, ctl, &out)
		// Each token was removed once: by Terraform's Close, or by the exit, not both.
		if st := ctl.Stats(); st.Requests[removalRoute] != st.Logins["oauth"] {
			t.Errorf("token removals %d for %d grants, want one each", st.Requests[removalRoute], st.Logins["oauth"])
		}
		if strings.Contains(out.String(), "Unable to remove access token") {
			t.Errorf("the clean apply reports a failed removal:\n%s", &out)
		}
	})
}

// childrenNamed returns the pids of the live children of parent whose command line
// names name.
func childrenNamed(parent int, name string) []int {
	var pids []int
	for _, p := range acctest.Processes() {
		if p.PPID != parent {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.PID), "cmdline"))
		if strings.Contains(string(cmdline), name) {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// TestAccEphemeralAccessToken_interruptDuringGrant: Ctrl-C (SIGINT to the process
// group) while the ephemeral token's grant is on the wire, on a platform that answers
// every request in 3 s. The open's error says that the provider was getting this
// token, and what the grant may leave live and until when, should the platform
// complete it: nobody receives that token.
func TestAccEphemeralAccessToken_interruptDuringGrant(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform answering in 3 s", emulator.Options{RenderDelay: testRenderDelay})
	ctl := emu.control(t, "a platform answering in 3 s")
	w := newWorkspace(t, emu, "")
	w.writeProvider("", emu.providerConfig()+providerConfigPlus(emu, `alias = "tool"
  request_headers = { "X-Tool-Token" = ephemeral.mediaplatform_access_token.tool.access_token }`)+
		"ephemeral \"mediaplatform_access_token\" \"tool\" {}\n"+
		"data \"mediaplatform_health\" \"h\" {\n  provider = mediaplatform.tool\n}\n")
	ctl.SetFaults(emulator.Faults{LatencyMs: 3000})
	cmd := w.command("plan")
	out, _, exited := startInGroup(t, cmd)
	if !waitFor(2*time.Minute, func() bool { return strings.Contains(out.String(), "Opening...") }) {
		t.Fatalf("the plan never opened the token:\n%s", out.String())
	}
	time.Sleep(4500 * time.Millisecond) // the grant follows the token flow's discovery (3 s) on the wire
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-exited
	s := ctl.Stats()
	t.Logf("after the interrupted plan: %d grants, %d removals, %d tokens live", s.Logins["oauth"], s.Requests[removalRoute], s.LiveTokens)
	text := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"Interrupted: Terraform was stopped (Ctrl-C or a cancelled run) while the provider was getting this token",
		"stays live until it expires, one token lifetime",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the interrupted open does not say %q:\n%s", want, out.String())
		}
	}
	ctl.Expire(true, false)
}
