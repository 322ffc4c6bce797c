package stopsignals

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestStopsEndAProcessByDefault: every signal of the list is one whose default action
// ends a process: a sleep started with the default dispositions dies of each.
func TestStopsEndAProcessByDefault(t *testing.T) {
	for _, sig := range Stops {
		cmd := exec.CommandContext(t.Context(), "sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Skip("no sleep command: ", err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !status.Signaled() || status.Signal() != sig {
			t.Errorf("%v: sleep ended %v, want killed by the signal: its default action does not end a process", sig, cmd.ProcessState)
		}
	}
}
