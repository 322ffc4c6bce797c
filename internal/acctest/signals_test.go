package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/stopsignals"
)

// stopsHelperVar, set, has this test binary act as a test process started with every
// signal of stopsignals.Stops ignored: it prints the SigIgn mask of a command it
// starts, after CommandsHearStops unless the value is "control".
const stopsHelperVar = "ACCTEST_STOPS_HELPER"

// TestCommandsHearStops starts this test binary with every stop signal ignored, as
// nohup and some supervisors start a process, and has it start a command: after
// CommandsHearStops the command ignores none of them; without it (the control), it
// ignores SIGHUP and SIGINT.
func TestCommandsHearStops(t *testing.T) {
	if mode, ok := os.LookupEnv(stopsHelperVar); ok {
		if mode != "control" {
			CommandsHearStops()
		}
		out, err := exec.CommandContext(t.Context(), "sh", "-c", "grep '^SigIgn:' /proc/self/status").Output()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Print(string(out))
		return
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc/self/status to read a process's ignored signals")
	}
	var names []string
	for _, s := range stopsignals.Stops {
		names = append(names, strconv.Itoa(int(s)))
	}
	for _, mode := range []string{"after", "control"} {
		cmd := exec.CommandContext(t.Context(), "sh", "-c", `trap "" `+strings.Join(names, " ")+`; exec "$0" -test.run='^TestCommandsHearStops$'`, os.Args[0])
		cmd.Env = append(os.Environ(), stopsHelperVar+"="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		_, field, ok := strings.Cut(string(out), "SigIgn:")
		if !ok {
			t.Fatalf("%s: no SigIgn line in the helper's output:\n%s", mode, out)
		}
		mask, err := strconv.ParseUint(strings.Fields(field)[0], 16, 64)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		for _, s := range stopsignals.Stops {
			ignored := mask&(1<<(uint(s)-1)) != 0
			// The Go runtime passes on only SIGHUP and SIGINT ignored: it installs its
			// handler for the others whatever their action at start.
			if want := mode == "control" && (s == syscall.SIGHUP || s == syscall.SIGINT); ignored != want {
				t.Errorf("%s: the command's action for %v: ignored %t, want %t", mode, s, ignored, want)
			}
		}
	}
}
