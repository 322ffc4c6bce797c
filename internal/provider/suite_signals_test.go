//go:build linux

package provider

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccProviderSignals stops terraform runs the way CI does, through the real
// provider binary under the real CLI, each run in a process group of its own: SIGTERM
// to the whole group (`timeout -s TERM`, a systemd stop, a CI server's abort), and
// kill -9 of terraform alone, which orphans the provider.
func TestAccProviderSignals(t *testing.T) {
	terraformPath := cliForTests(t)
	t.Parallel()
	cliConfig := providerCLIConfig(t)
	// Scores rendering for 2 s a state: publishes take milliseconds, and each create
	// then waits about 4 s for its rendering, when the signal comes.
	newWorkspace := func(t *testing.T, what string) (*workspace, *emulator.Emulator) {
		emu := newTestEmulatorWith(t, what, emulator.Options{RenderDelay: 2 * time.Second})
		ctl := emu.control(t, what)
		var config strings.Builder
		for i := range 12 {
			name := accName()
			alias := ""
			if i%2 == 0 {
				alias = fmt.Sprintf("\n  score_id  = %q", name)
			}
			fmt.Fprintf(&config, "resource \"mediaplatform_score\" \"s%d\" {\n  score_url = %q%s\n}\n", i, accScoreURL(name), alias)
		}
		w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: cliConfig, emu: emu}
		w.write(config.String())
		return w, ctl
	}
	// startGroup starts terraform apply in a process group of its own, and returns
	// its output so far and a wait for its end.
	startGroup := func(t *testing.T, w *workspace) (*exec.Cmd, *strings.Builder) {
		cmd := w.command("apply", "-auto-approve")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Whatever happens, nothing of the group outlives the test.
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		return cmd, &out
	}
	waitForScores := func(t *testing.T, ctl *emulator.Emulator, n int, out *strings.Builder) {
		deadline := time.Now().Add(90 * time.Second)
		for ctl.Stats().Scores < n {
			if time.Now().After(deadline) {
				t.Fatalf("the platform never held %d scores:\n%s", n, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// tokensGone waits up to limit for the platform to hold no live token.
	tokensGone := func(ctl *emulator.Emulator, limit time.Duration) bool {
		for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if ctl.Stats().LiveTokens == 0 {
				return true
			}
		}
		return false
	}

	t.Run("SIGTERM to the process group", func(t *testing.T) {
		t.Parallel()
		w, ctl := newWorkspace(t, "scores that render for seconds")
		cmd, out := startGroup(t, w)
		waitForScores(t, ctl, 10, out)
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait() // a stopped apply exits non-zero
		held := ctl.Stats().Scores
		list := strings.Fields(w.run("state", "list"))
		if len(list) != held {
			t.Errorf("after SIGTERM the platform holds %d scores and the state %d: %v\napply output:\n%s", held, len(list), list, out)
		}
		if !tokensGone(ctl, 5*time.Second) {
			t.Errorf("after SIGTERM the provider's platform token is still live")
		}
		next := w.run("apply", "-auto-approve")
		if n := ctl.Stats().Scores; n != 12 {
			t.Errorf("after the stopped apply and one more, the platform holds %d scores, want 12 (no duplicates):\n%s", n, next)
		}
		w.run("destroy", "-auto-approve")
	})

	// Views are the other write of an apply: the platform makes the view at once, and
	// only the create's answer (its id and viewer URL) brings it into the state. The
	// proxy holds each answer back for viewAnswerDelay, so the stop comes when the
	// platform has made every view and the provider has read none of the answers.
	t.Run("SIGTERM while views are created", func(t *testing.T) {
		t.Parallel()
		const views, viewAnswerDelay = 8, 3 * time.Second
		emu, proxy := newProxiedTestEmulatorWith(t, "view answers held back", emulator.Options{RenderDelay: testRenderDelay})
		ctl := emu.control(t, "view answers held back")
		proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/view$`, Delay: viewAnswerDelay})
		name := accName()
		config := fmt.Sprintf("resource \"mediaplatform_score\" \"s\" {\n  score_url = %q\n  score_id  = %q\n}\n", accScoreURL(name), name)
		for i := range views {
			config += fmt.Sprintf("resource \"mediaplatform_score_view\" \"v%d\" {\n  score = mediaplatform_score.s.id\n  license_string = \"copy %d\"\n}\n", i, i)
		}
		w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: cliConfig, emu: emu}
		w.write(config)
		cmd, out := startGroup(t, w)
		for deadline := time.Now().Add(90 * time.Second); ctl.Stats().Views < views; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the platform never held %d views:\n%s", views, out)
			}
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		inState := 0
		for _, address := range strings.Fields(w.run("state", "list")) {
			if strings.HasPrefix(address, "mediaplatform_score_view.") {
				inState++
			}
		}
		if created := ctl.Stats().Views; inState != created {
			t.Errorf("after SIGTERM the platform holds %d views and the state %d:\n%s", created, inState, out)
		}
		if !tokensGone(ctl, 5*time.Second) {
			t.Errorf("after SIGTERM the provider's platform token is still live")
		}
		next := w.run("apply", "-auto-approve")
		if n := ctl.Stats().Views; n != views {
			t.Errorf("after the stopped apply and one more, the platform holds %d views, want %d (none created twice):\n%s", n, views, next)
		}
	})

	t.Run("kill -9 of terraform", func(t *testing.T) {
		t.Parallel()
		w, ctl := newWorkspace(t, "scores that render for seconds")
		cmd, out := startGroup(t, w)
		waitForScores(t, ctl, 10, out)
		provider := childNamed(t, cmd.Process.Pid, "terraform-provider-mediaplatform")
		if provider == 0 {
			t.Fatalf("no provider process under terraform (pid %d)", cmd.Process.Pid)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		start := time.Now()
		for alive(provider) {
			if time.Since(start) > 15*time.Second {
				t.Fatalf("the provider (pid %d) still runs %s after terraform was killed", provider, time.Since(start).Round(time.Second))
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("the orphaned provider exited %s after terraform was killed", time.Since(start).Round(100*time.Millisecond))
		if !tokensGone(ctl, time.Second) {
			t.Errorf("the orphaned provider exited and left its platform token live")
		}
		// The killed run saved no state: the next apply meets the aliases it published.
		// It refuses to adopt them, and says why they may be this configuration's.
		cmd = w.command("apply", "-auto-approve")
		again, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("the apply after kill -9 adopted scores it cannot know it created:\n%s", again)
		}
		for _, want := range []*regexp.Regexp{
			errorPattern("Unable to publish score", "published at", "with this resource's score_url",
				"a run of this configuration that was stopped before it could save its state", "terraform import"),
		} {
			if !want.MatchString(string(again)) {
				t.Errorf("the apply after kill -9 lacks %q:\n%s", want, again)
			}
		}
	})
}

// childNamed returns the pid of a live child of parent whose command line names name,
// or 0.
func childNamed(t *testing.T, parent int, name string) int {
	t.Helper()
	for _, p := range acctest.Processes() {
		if p.PPID != parent {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.PID), "cmdline"))
		if strings.Contains(string(cmdline), name) {
			return p.PID
		}
	}
	return 0
}

// alive reports whether the process runs (a zombie waiting to be reaped does not).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
