package acctest

// A stand-in terraform for the tests of the signals a CI job's stop delivers (the CI
// runner models, the CI recipe): the test binary itself, run under the name terraform
// (a TestMain runs TerraformStandIn instead of the tests when StandInRecordVar is set).
// It records every signal it receives and stops as Terraform does: on one interrupt
// (SIGINT or SIGTERM, the same to Terraform) it finishes gracefully and exits 1, on a
// second it exits at once, and a SIGHUP or SIGKILL ends it unrecorded. Nothing to
// build, no TF_ACC, no provider: the acceptance tests run the real CLI.

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	// StandInRecordVar names the file the stand-in appends its record to: "start
	// <args>", "signal <name>" per signal, "exit <status>" when it ends by itself.
	StandInRecordVar = "TERRAFORM_STAND_IN_RECORD"
	// StandInRunVar is how long the stand-in's command works before it completes (a Go
	// duration; default 20 s).
	StandInRunVar = "TERRAFORM_STAND_IN_RUN"
	// StandInGraceVar is how long its graceful stop takes after the first interrupt,
	// the calls on the wire finishing (default 1 s).
	StandInGraceVar = "TERRAFORM_STAND_IN_GRACE"
)

// TerraformStandIn is the stand-in's main; it returns the exit status.
func TerraformStandIn() int {
	f, err := os.OpenFile(os.Getenv(StandInRecordVar), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "terraform stand-in:", err)
		return 2
	}
	defer f.Close()
	note := func(format string, a ...any) {
		_, _ = fmt.Fprintf(f, format+"\n", a...)
		_ = f.Sync()
	}
	duration := func(name string, def time.Duration) time.Duration {
		if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
			return d
		}
		return def
	}
	// Terraform's own signals: os.Interrupt and SIGTERM (command/meta.go, makeShutdownCh).
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	note("start %s", strings.Join(os.Args[1:], " "))
	select {
	case <-time.After(duration(StandInRunVar, 20*time.Second)):
		fmt.Println("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.")
		note("exit 0")
		return 0
	case s := <-signals:
		note("signal %s", s)
		fmt.Println("\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\nGracefully shutting down...")
	}
	select {
	case <-time.After(duration(StandInGraceVar, time.Second)):
		fmt.Fprintln(os.Stderr, "\nError: execution halted")
		note("exit 1")
	case s := <-signals:
		note("signal %s", s)
		fmt.Fprintln(os.Stderr, "Two interrupts received. Exiting immediately. Note that data loss may have occurred.")
		note("exit 1")
	}
	return 1
}

// StandInTerraform returns a directory holding the stand-in as terraform, to put first
// on a job's PATH, and the name of the file the stand-in will record to.
func StandInTerraform(t *testing.T) (bin, record string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin = t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "terraform")); err != nil {
		t.Fatal(err)
	}
	return bin, filepath.Join(t.TempDir(), "terraform.record")
}

// StandInRun is what the stand-in recorded of one run.
type StandInRun struct {
	Started bool
	Signals []string // the signals it received, in order
	Exit    string   // its exit status when it ended by itself, "" when it was killed or runs on
}

// ReadStandIn reads the stand-in's record.
func ReadStandIn(record string) StandInRun {
	var r StandInRun
	f, err := os.Open(record)
	if err != nil {
		return r
	}
	defer f.Close()
	for s := bufio.NewScanner(f); s.Scan(); {
		what, rest, _ := strings.Cut(s.Text(), " ")
		switch what {
		case "start":
			r.Started = true
		case "signal":
			r.Signals = append(r.Signals, rest)
		case "exit":
			r.Exit = rest
		}
	}
	return r
}
