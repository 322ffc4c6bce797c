package acctest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStartNotBusy: a script still open for writing cannot be run (ETXTBSY); once the
// writer closes it, StartNotBusy's next try starts it. The first try fails busy, which
// shows the test meets what it is about.
func TestStartNotBusy(t *testing.T) {
	script := filepath.Join(t.TempDir(), "busy")
	f, err := os.OpenFile(script, os.O_CREATE|os.O_WRONLY, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("#!/bin/sh\nexit 0\n"); err != nil {
		t.Fatal(err)
	}
	first := &exec.Cmd{Path: script, Args: []string{script}}
	if err := first.Start(); !errors.Is(err, syscall.ETXTBSY) {
		t.Fatalf("a script open for writing started with %v, want ETXTBSY", err)
	}
	time.AfterFunc(200*time.Millisecond, func() { _ = f.Close() })
	cmd, err := StartNotBusy(&exec.Cmd{Path: script, Args: []string{script}})
	if err != nil {
		t.Fatalf("StartNotBusy: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}
