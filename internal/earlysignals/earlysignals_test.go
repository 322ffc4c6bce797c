package earlysignals

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/stopsignals"
)

// TestSignalsIgnoredFromInit: this test binary imports the package, so its init ran
// before the test; no signal of Stops sent to the process now may end it (without
// the init, SIGINT, SIGTERM, SIGHUP and SIGQUIT each end the test binary at once).
func TestSignalsIgnoredFromInit(t *testing.T) {
	for _, sig := range stopsignals.Stops {
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // a signal not ignored would have ended the process
	// The handlers that take over later get the signal again.
	got := make(chan os.Signal, 1)
	signal.Notify(got, syscall.SIGINT)
	defer signal.Ignore(syscall.SIGINT)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("signal.Notify did not take SIGINT over from the ignore")
	}
}

// TestInitializedBeforeTheHeavyPackages reads the provider binary's package
// initialization (GODEBUG=inittrace=1): the guard must come before the packages whose
// initialization is the process's start (gRPC, protocol buffers, the framework), so
// that hardly any of that start is unguarded. Allocations, not times, measure it: the
// same for every run on every machine.
func TestInitializedBeforeTheHeavyPackages(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "terraform-provider-mediaplatform")
	build := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-o", bin, "github.com/mediaplatform/terraform-provider-mediaplatform")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin) // without Terraform's cookie it prints a notice and exits
	run.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := run.CombinedOutput()

	const guard = "github.com/mediaplatform/terraform-provider-mediaplatform/internal/earlysignals"
	var before, total int
	var at, packages int
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("reading %q: %v", sc.Text(), err)
		}
		packages++
		total += n
		if f[1] == guard {
			at, before = packages, total
		}
	}
	if at == 0 {
		t.Fatalf("the provider binary does not initialize %s:\n%s", guard, out)
	}
	t.Logf("the guard is package %d of %d initialized; %d of %d bytes of initialization before it", at, packages, before, total)
	if before*50 > total {
		t.Errorf("%d of %d bytes of the packages' initialization come before the guard: more than 2 %% of the start is unguarded", before, total)
	}
}
