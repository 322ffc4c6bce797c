// Package earlysignals keeps a signal that stops a run (stopsignals.Stops) and that
// reaches the provider while its process starts from killing it.
//
// A terminal, a shell or a supervisor signals Terraform's whole process group, the
// provider plugins in it: Ctrl-C, a CI runner's Cancel, `timeout -s TERM`, a terminal
// that hangs up, Ctrl-\. Once serving, the provider outlives each of them (serve.go
// reads the same list), so that Terraform, which got the same signal, stops it
// gracefully, or, should Terraform die of it, the provider removes its credentials
// and exits. Before that, while the process starts, a Go program dies of any of them, and
// Terraform, its plugin gone before the handshake, fails with "Failed to load plugin
// schemas" instead of stopping the run gracefully. The process's start is mostly the
// initialization of its packages (gRPC, protocol buffers, the framework): this
// package, imported by main and importing nothing but os/signal and the list (which
// imports only os and syscall), is initialized before them, and ignores the signals of
// the list from then on until the process's own handlers take them over
// (signal.Notify undoes signal.Ignore). Only main imports it: a process that imports
// it ignores those signals from its start, and so do the programs it starts (an
// ignored SIGHUP or SIGINT is inherited), which a test binary must not do.
package earlysignals

import (
	"os/signal"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/stopsignals"
)

func init() {
	signal.Ignore(stopsignals.Signals()...)
}

// Restore gives the signals of stopsignals.Stops back their default action: for a
// process that serves in the foreground (the provider's debug mode), where Ctrl-C is
// meant to stop it.
func Restore() {
	signal.Reset(stopsignals.Signals()...)
}
