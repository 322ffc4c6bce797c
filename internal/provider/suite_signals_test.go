//go:build linux

package provider

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/stopsignals"
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

// TestAccProviderStopSignals stops an apply and a plan with each signal of
// stopsignals.Stops (a signal added there adds its cases here), through the real
// provider binary under the real CLI, in a run that holds every kind of credential:
// an administrator session (the external authentication settings read), the
// ephemeral token handed to a second provider configuration, and that configuration's
// own platform token. Each signal reaches the run as it does in life: to the whole
// process group, from a terminal, a shell or a supervisor; SIGPIPE, which nobody
// sends, as the reader of terraform's output going away while logs are on (TF_LOG),
// so that terraform, then the provider, write to a pipe nobody reads. Afterwards the
// platform holds no live token or session; the state holds the scores the platform
// holds whenever terraform itself survived the signal (SIGINT and SIGTERM; a hang-up
// or Ctrl-\ kills terraform too, before it saves its state); and the next apply
// ends with every score once, adopted by its alias where the stopped run published it.
func TestAccProviderStopSignals(t *testing.T) {
	terraformPath := cliForTests(t)
	t.Parallel()
	cliConfig := providerCLIConfig(t)
	const scores = 4
	config := func(emu *testEmulator) string {
		var b strings.Builder
		b.WriteString(emu.providerConfig())
		b.WriteString(providerConfigPlus(emu, `alias = "tool"
  request_headers = { "X-Tool-Token" = ephemeral.mediaplatform_access_token.tool.access_token }`))
		b.WriteString("ephemeral \"mediaplatform_access_token\" \"tool\" {}\n")
		// An administrator session in each phase: one read at plan, one at apply.
		b.WriteString("data \"mediaplatform_external_authentication\" \"at_plan\" {}\n")
		b.WriteString("resource \"terraform_data\" \"first\" {}\n")
		b.WriteString("data \"mediaplatform_external_authentication\" \"at_apply\" {\n  depends_on = [terraform_data.first]\n}\n")
		b.WriteString("data \"mediaplatform_health\" \"h\" {\n  provider = mediaplatform.tool\n}\n")
		for i := range scores {
			name := accName()
			fmt.Fprintf(&b, "resource \"mediaplatform_score\" \"s%d\" {\n  provider         = mediaplatform.tool\n  score_url        = %q\n"+
				"  score_id         = %q\n  adopt_unrecorded = true\n}\n", i, accScoreURL(name), name)
		}
		return b.String()
	}
	// stop delivers sig to the run of cmd (its own process group), whose output is
	// read from reader.
	stop := func(t *testing.T, sig syscall.Signal, cmd *exec.Cmd, reader *os.File) {
		t.Helper()
		if sig == syscall.SIGPIPE {
			_ = reader.Close()
			return
		}
		if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
			t.Fatal(err)
		}
	}

	for _, sig := range stopsignals.Stops {
		for _, command := range []string{"apply", "plan"} {
			t.Run(fmt.Sprintf("%s during %s", sig, command), func(t *testing.T) {
				t.Parallel()
				// Scores render for about 10 s: the apply is stopped while it waits.
				emu, proxy := newProxiedTestEmulatorWith(t, "live credentials", emulator.Options{RenderDelay: 5 * time.Second})
				ctl := emu.control(t, "live credentials")
				var held int
				if command == "plan" {
					held = proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Delay: time.Minute})
				}
				w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: cliConfig, emu: emu}
				w.writeProvider("", config(emu))
				if sig == syscall.SIGPIPE {
					w.env = append(w.env, "TF_LOG=TRACE") // both processes write all the time
				}
				args := []string{command}
				if command == "apply" {
					args = append(args, "-auto-approve")
				}
				cmd := w.command(args...)
				out, reader, exited := startInGroup(t, cmd)
				ready := func() bool {
					select {
					case <-exited:
						t.Fatalf("terraform %s ended before the stop:\n%s", command, out.tail())
					default:
					}
					s := ctl.Stats()
					if command == "plan" {
						return s.LiveSessions >= 1 && s.LiveTokens >= 1 && proxy.Hits(held) > 0
					}
					return s.LiveSessions >= 1 && s.LiveTokens >= 2 && s.Scores >= scores
				}
				if !waitFor(90*time.Second, ready) {
					t.Fatalf("the %s never held its credentials and reached its wait:\n%s", command, out.tail())
				}
				before := ctl.Stats()
				providers := childrenNamed(cmd.Process.Pid, "terraform-provider-mediaplatform")
				stop(t, sig, cmd, reader)
				select {
				case <-exited:
				case <-time.After(60 * time.Second):
					t.Fatalf("terraform still runs a minute after %s:\n%s", sig, out.tail())
				}
				status, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
				for _, pid := range providers {
					for start := time.Now(); alive(pid); time.Sleep(100 * time.Millisecond) {
						if time.Since(start) > 20*time.Second {
							t.Fatalf("a provider (pid %d) still runs 20 s after terraform ended", pid)
						}
					}
				}
				waitFor(5*time.Second, func() bool { s := ctl.Stats(); return s.LiveTokens+s.LiveSessions == 0 })
				after := ctl.Stats()
				inState := 0
				if st, err := os.Stat(filepath.Join(w.dir, "terraform.tfstate")); command == "apply" && err == nil && st.Size() > 0 {
					// A CLI killed before it wrote a snapshot leaves none, or an empty file:
					// OpenTofu's state list then fails ("No state file was found!") where
					// Terraform's lists nothing; both hold no score.
					inState = countScores(w.run("state", "list"))
				}
				t.Logf("%s during %s: terraform %s; before the stop %d live tokens and %d sessions, after it %d tokens "+
					"(%d grants, %d removals) and %d sessions live; the platform holds %d scores, the state %d",
					sig, command, describeStatus(status), before.LiveTokens, before.LiveSessions, after.LiveTokens,
					after.Logins["oauth"], after.Requests[removalRoute], after.LiveSessions, after.Scores, inState)
				if after.LiveTokens+after.LiveSessions != 0 {
					t.Errorf("after %s during %s the platform holds %d live tokens and %d live sessions, want none:\n%s",
						sig, command, after.LiveTokens, after.LiveSessions, out.tail())
				}
				if command == "plan" {
					if after.Scores != 0 {
						t.Errorf("the plan stopped by %s published %d scores", sig, after.Scores)
					}
					return
				}
				// The state loses the run's scores only when terraform died of the signal.
				if strings.Contains(out.String(), "Interrupt received") && inState != after.Scores {
					t.Errorf("terraform stopped on %s and saved %d scores of the %d the platform holds:\n%s",
						sig, inState, after.Scores, out.tail())
				}
				proxy.Clear()
				// The next apply a minute later on the platform's clock: adopt_unrecorded
				// takes only a score older than the run by more than the clocks' slack.
				ctl.SetFaults(emulator.Faults{ClockOffsetSeconds: 60})
				next := w.run("apply", "-auto-approve")
				if n, listed := ctl.Stats().Scores, countScores(w.run("state", "list")); n != scores || listed != scores {
					t.Errorf("after the apply stopped by %s and one more, the platform holds %d scores and the state %d, want %d each:\n%s",
						sig, n, listed, scores, next)
				}
			})
		}
	}
}

// countScores counts the scores in the output of terraform state list.
func countScores(list string) int {
	n := 0
	for _, address := range strings.Fields(list) {
		if strings.HasPrefix(address, "mediaplatform_score.") {
			n++
		}
	}
	return n
}

// startInGroup starts cmd in a process group of its own (killed at the end of the
// test), its output read into a lockedBuilder from a pipe; it returns the output, the
// pipe's read end (closing it breaks the pipe) and a channel closed when cmd has
// ended and its output is read.
func startInGroup(t *testing.T, cmd *exec.Cmd) (*lockedBuilder, *os.File, <-chan struct{}) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	reader, writer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = writer, writer
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = writer.Close()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	out := &lockedBuilder{}
	read := make(chan struct{})
	go func() { _, _ = io.Copy(out, reader); close(read) }()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); <-read; close(exited) }()
	return out, reader, exited
}

// describeStatus says how a process ended.
func describeStatus(s syscall.WaitStatus) string {
	if s.Signaled() {
		return "died of " + s.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", s.ExitStatus())
}

// lockedBuilder is a strings.Builder safe for one writer and concurrent readers.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written.
func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tail is the last 8000 bytes written: a run with TF_LOG writes megabytes.
func (l *lockedBuilder) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	return s[max(0, len(s)-8000):]
}
