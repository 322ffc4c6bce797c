//go:build linux

package provider

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccScore_openFilesLimit applies many scores at a high -parallelism on a
// machine whose open-files limit is low (a container's or CI agent's nofile, a
// service's LimitNOFILE), against a platform answering each request after a second,
// through the real CLI and provider binary. The provider stays below the limit (its
// open files are sampled throughout), the apply completes, and the state holds every
// score the platform holds. Before, the provider opened a connection per concurrent
// call, reached the limit, and the calls that met it retried (or, after their
// retries, failed with advice about the network path).
func TestAccScore_openFilesLimit(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores, limit, parallelism, latency = 150, 64, 100, time.Second
	emu, proxy := newProxiedTestEmulator(t, "a platform answering in 1 s")
	ctl := emu.control(t, "score counts")
	proxy.Add(faultproxy.Fault{Latency: latency})
	var config strings.Builder
	for i := range scores {
		fmt.Fprintf(&config, "resource \"mediaplatform_score\" \"s%d\" {\n  score_url = %q\n}\n", i, accScoreURL(accName()))
	}
	w := newWorkspace(t, emu, config.String())
	apply := w.command("apply", "-auto-approve", fmt.Sprintf("-parallelism=%d", parallelism))
	// Terraform and the provider it starts inherit the limit, soft and hard (the Go
	// runtime raises a soft limit to the hard one when it starts).
	apply.Args = append([]string{"sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit)}, apply.Args...)
	apply.Path = "/bin/sh"
	start := time.Now()
	out, peak, err := runHoldingFiles(t, apply)
	t.Logf("apply of %d scores under a limit of %d open files at -parallelism=%d: %v in %s; the provider held at most %d files",
		scores, limit, parallelism, err, time.Since(start).Round(time.Second), peak)
	if peak >= limit {
		t.Errorf("the provider held %d open files, reaching the limit of %d: its connections are not bounded below it", peak, limit)
	}
	if err != nil {
		t.Errorf("the apply under the limit failed: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "network path") {
		t.Errorf("a failure blames the network path for a limit of this machine:\n%s", out)
	}
	inState := len(strings.Fields(w.run("state", "list")))
	if held := ctl.Stats().Scores; inState != held || held != scores {
		t.Errorf("the platform holds %d scores and the state %d, want %d of each", held, inState, scores)
	}
}

// runHoldingFiles runs cmd (a terraform command, or a shell that execs one) to its end
// and returns its combined output, its error, and the most files a provider it
// started held at once (/proc/PID/fd of its children named after the provider,
// sampled every 20 ms).
func runHoldingFiles(t *testing.T, cmd *exec.Cmd) ([]byte, int, error) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var peak int
	var sampling sync.WaitGroup
	sampling.Go(func() {
		for {
			for _, pid := range childrenNamed(cmd.Process.Pid, "terraform-provider-mediaplatform") {
				if fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd")); err == nil {
					peak = max(peak, len(fds))
				}
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	err := cmd.Wait()
	close(done)
	sampling.Wait()
	return out.Bytes(), peak, err
}
