package provider

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccServe_killedInItsExit: the provider process is killed (SIGKILL, as Terraform
// kills a provider about 2 s after asking it to stop) while the removal of its platform
// token is on the wire, held by the proxy before it reaches the platform. The token
// stays live, and the provider's log at WARN names it as one that may be left live:
// the exit reports each credential before it sends its release, so a kill anywhere in
// the exit leaves the report. On a starved machine (both cores busy beside ten jobs)
// the kill came before the report written after the exit, and a token was left live
// without a word (TestAccProviderSharedRateLimit).
func TestAccServe_killedInItsExit(t *testing.T) {
	terraformPath := cliForTests(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulatorWith(t, "a token removal held on the wire", emulator.Options{})
	ctl := emu.control(t, "a token removal held on the wire")
	dir := t.TempDir()
	logPath := filepath.Join(dir, "provider.log")
	w := &workspace{t: t, terraform: terraformPath, dir: dir, cliConfig: providerCLIConfig(t), emu: emu,
		env: []string{"TF_LOG_PROVIDER=WARN", "TF_LOG_PATH=" + logPath}}
	w.write(`data "mediaplatform_scores" "all" {}` + "\n")

	arrived := make(chan struct{}, 1)
	proxy.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/auth/tokens/`, Handle: func(_ http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done() // never answered, never forwarded
	}})
	cmd := w.command("plan")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-arrived:
	case err := <-exited:
		t.Fatalf("terraform plan ended (%v) before the provider sent its token removal", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the provider sent no token removal within 2 minutes")
	}
	killed := 0
	for _, pid := range childProcesses(cmd.Process.Pid, "terraform-provi") {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("no provider process of terraform's to kill")
	}
	if err := <-exited; err != nil {
		t.Logf("terraform plan: %v", err)
	}

	live := ctl.Stats().LiveTokens
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	reports := exitReportsIn(string(log))
	t.Logf("killed %d provider process(es) with the token removal on the wire: %d platform tokens live, %d reported (%v)",
		killed, live, len(reports.tokens), reports.tokens)
	if live != 1 {
		t.Errorf("%d platform tokens live, want the 1 whose removal never reached the platform", live)
	}
	if len(reports.tokens) != live {
		t.Errorf("the provider's log at WARN names %d platform tokens that may be left live; %d are:\n%s",
			len(reports.tokens), live, log)
	}
	ctl.Expire(true, true) // reported: the harness's check is for silent ones
}

// exitReports are the credentials that a provider log at WARN names as possibly left
// live by the exit: each one its exit announced it was releasing ("Provider exiting:
// removing platform token sha256:…") and did not confirm released, because the release
// failed or the process was killed first. Of those, the uncertain ones may have been
// released all the same: the process was killed with the request sent (no outcome in
// the log), or the exit's window ended with it under way; the others were refused.
type exitReports struct {
	tokens, sessions                   []string
	uncertainTokens, uncertainSessions int
}

var (
	exitReleasing = regexp.MustCompile(`Provider exiting: (?:removing|logging out) (platform token|administrator session) (sha256:[0-9a-f]+);`)
	exitReleased  = regexp.MustCompile(`Provider exiting: (platform token|administrator session) (sha256:[0-9a-f]+) (?:removed|logged out)`)
	exitLeftLive  = regexp.MustCompile(`Provider exiting: (platform token|administrator session) (sha256:[0-9a-f]+) left live until it expires`)
)

// exitReportsIn reads the exit's reports of a provider log.
func exitReportsIn(log string) exitReports {
	open := map[string]int{}    // kind and name: announced minus confirmed
	refused := map[string]int{} // kind and name: failures whose outcome is known (not cut off)
	var order []string
	for _, line := range logRecords(log) {
		if m := exitReleasing.FindStringSubmatch(line); m != nil {
			key := m[1] + " " + m[2]
			if _, seen := open[key]; !seen {
				order = append(order, key)
			}
			open[key]++
		} else if m := exitReleased.FindStringSubmatch(line); m != nil {
			open[m[1]+" "+m[2]]--
		} else if m := exitLeftLive.FindStringSubmatch(line); m != nil && !strings.Contains(line, "was still under way when the exit's window ended") {
			refused[m[1]+" "+m[2]]++
		}
	}
	var r exitReports
	for _, key := range order {
		open[key] = max(open[key], 0)
		uncertain := max(open[key]-refused[key], 0)
		if name, ok := strings.CutPrefix(key, "platform token "); ok {
			r.tokens = append(r.tokens, slices.Repeat([]string{name}, open[key])...)
			r.uncertainTokens += uncertain
		} else {
			r.sessions = append(r.sessions, slices.Repeat([]string{strings.TrimPrefix(key, "administrator session ")}, open[key])...)
			r.uncertainSessions += uncertain
		}
	}
	return r
}

// childProcesses returns the PIDs of parent's live children whose command name (as
// /proc/PID/comm gives it, at most 15 characters) is comm.
func childProcesses(parent int, comm string) []int {
	var pids []int
	for _, p := range acctest.Processes() {
		if p.PPID != parent {
			continue
		}
		if name, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.PID), "comm")); err == nil && strings.TrimSuffix(string(name), "\n") == comm {
			pids = append(pids, p.PID)
		}
	}
	return pids
}
