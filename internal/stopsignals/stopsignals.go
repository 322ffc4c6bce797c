// Package stopsignals is the one list of the signals that stop a run: read by
// earlysignals, which ignores them while the provider's process starts, by serve.go,
// which outlives them while it serves, and by the tests that stop runs through
// Terraform, which take their cases from it. It has no init: importing it changes
// nothing in a process.
package stopsignals

import (
	"os"
	"syscall"
)

// Stops are the signals whose default action ends the process and that a terminal, a
// shell or a supervisor sends to the process group Terraform and the provider share.
// The provider outlives each one (earlysignals ignores it from init, then serve.go
// handles it) and ends when Terraform shuts it down or, should Terraform be gone,
// once it has removed its platform tokens and logged its administrator session out.
// The tests that stop runs through Terraform take their cases from this list.
//
// Left to their default, and why:
//   - SIGKILL and SIGSTOP cannot be caught.
//   - SIGTSTP, SIGTTIN and SIGTTOU (Ctrl-Z, a background job's terminal I/O) stop the
//     process without ending it; SIGCONT resumes it with its credentials.
//   - SIGXCPU and SIGXFSZ come from a resource limit someone set (ulimit -t, -f):
//     ending the process is the limit's point.
//   - SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP and SIGSYS are the process's
//     own faults, which the Go runtime reports with a stack.
//   - SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGSTKFLT and SIGPWR: no
//     terminal, shell or CI supervisor sends them to a command's process group; a
//     process that does means to end the provider.
var Stops = []syscall.Signal{
	syscall.SIGINT,  // Ctrl-C; a CI runner's cancel
	syscall.SIGTERM, // timeout -s TERM, systemd, docker stop, a CI server's abort button
	syscall.SIGHUP,  // a terminal that hangs up: an SSH connection dropped, a terminal window closed
	syscall.SIGQUIT, // Ctrl-\, to the whole foreground group; Go's default dumps every goroutine and exits
	// A write to a standard output or error whose reader is gone: Terraform's, once it
	// died. Go ends the process on such a write to fd 1 or 2 unless SIGPIPE is handled;
	// handled, the write fails and the exit still runs.
	syscall.SIGPIPE,
}

// Signals returns Stops as os.Signal values, for signal.Notify and signal.Ignore.
func Signals() []os.Signal {
	sigs := make([]os.Signal, len(Stops))
	for i, s := range Stops {
		sigs[i] = s
	}
	return sigs
}
