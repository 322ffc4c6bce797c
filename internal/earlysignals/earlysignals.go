// Package earlysignals keeps an interrupt (SIGINT) or a termination signal (SIGTERM)
// that reaches the provider while its process starts from killing it.
//
// Ctrl-C, a CI runner's Cancel and `timeout -s TERM` signal Terraform's whole process
// group, the provider plugins in it. Once serving, the provider outlives both, as the
// plugin library does for SIGINT and Serve does for SIGTERM, so that Terraform, which
// got the same signal, stops it gracefully. Before that, while the process starts, a
// Go program dies of either signal, and Terraform, its plugin gone before the
// handshake, fails with "Failed to load plugin schemas" instead of stopping the run
// gracefully. The process's start is mostly the initialization of its packages (gRPC,
// protocol buffers, the framework): this package, imported by main and importing
// nothing but os/signal and syscall, is initialized before them, and ignores both
// signals from then on until the process's own handlers take them over (signal.Notify
// undoes signal.Ignore).
package earlysignals

import (
	"os/signal"
	"syscall"
)

func init() {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
}

// Restore gives both signals back their default action: for a process that serves
// in the foreground (the provider's debug mode), where Ctrl-C is meant to stop it.
func Restore() {
	signal.Reset(syscall.SIGINT, syscall.SIGTERM)
}
