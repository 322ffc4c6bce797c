//go:build linux

package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccDiagnosticsHints_openFilesLimitAsGiven: on a machine whose open-files limit is
// 16 (a container's or CI agent's nofile, a service's LimitNOFILE, set low), a plan
// reading 32 scores at -parallelism=32 from a platform that answers each read in
// 200 ms fails: the provider, allowed 4 connections to one host under that limit,
// already holds about a dozen files of its own (its plugin connection, logs, the
// runtime's), and its dials meet EMFILE. The lead says "This machine, not the network,
// refused a connection … Raise the limit (`ulimit -n 4096` …) or run with a lower
// `-parallelism`". The test does what it says, one way at a time: the same plan under
// the limit the lead names, then at -parallelism=1 under a low limit; each passes.
//
// That low limit is measured, not 16 again: a read at a time needs the provider's own
// files and a connection to each of the platform's hosts it reaches (here two: the
// proxy and the token service behind the links), 16 files at the plan under the
// named limit (Terraform 1.11.4, Go 1.26), which left no room under 16 for a connection
// the transport dials while another is on its way back to the pool: under load, one
// run in a few failed there (CI, 2026-11-29). So the plan at -parallelism=1 runs under
// the most files that plan held at most plus two, or 16 when that is more. Seen
// 2026-11-29: under 16, 30 to 32 of the 32 reads were refused; under 20, the plan at
// -parallelism=32 passed.
func TestAccDiagnosticsHints_openFilesLimitAsGiven(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores, limit = 32, 16
	emu, proxy := newProxiedTestEmulator(t, "a platform answering reads in 200 ms")
	c := emu.client(t)
	remove := emu.deleteAtCleanup(t)
	var config strings.Builder
	for i := range scores {
		s, err := c.PublishScore(t.Context(), client.PublishScoreInput{ScoreURL: accScoreURL(accName())})
		if err != nil {
			t.Fatal(err)
		}
		remove(s.ID)
		fmt.Fprintf(&config, "data \"mediaplatform_score\" \"s%d\" {\n  id = %q\n}\n", i, s.ID)
	}
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Latency: 200 * time.Millisecond})
	w := newWorkspace(t, emu, "")
	// One GET a read, so that the reads run at Terraform's -parallelism.
	w.writeWith(`refresh_strategy = "individual"`, config.String())
	// plan runs terraform plan under an open-files limit, soft and hard, as a container
	// sets it: Terraform and the provider it starts inherit it (the Go runtime raises a
	// soft limit to the hard one when it starts). It returns the most files the
	// provider held at once too.
	plan := func(nofile int, args ...string) ([]byte, int, error) {
		cmd := w.command(append([]string{"plan"}, args...)...)
		cmd.Args = append([]string{"sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile)}, cmd.Args...)
		cmd.Path = "/bin/sh"
		return runHoldingFiles(t, cmd)
	}
	out, _, err := plan(limit, fmt.Sprintf("-parallelism=%d", scores))
	if err == nil {
		t.Fatalf("the plan of %d reads at once under a limit of %d open files succeeded: the test shows no hint:\n%s",
			scores, limit, out)
	}
	said := strings.Join(strings.Fields(string(out)), " ")
	lead := regexp.MustCompile("This machine, not the network, refused a connection to \\S+ \\(from [a-z_]+\\): the process " +
		"may open only [0-9]+ files at once, and Terraform ran more operations at once than it allows. Raise the limit " +
		"\\(`ulimit -n ([0-9]+)`.*? or run with a lower `-parallelism`").FindStringSubmatch(said)
	if lead == nil {
		t.Fatalf("the failed plan has no lead naming this machine's open-files limit:\n%s", out)
	}
	t.Logf("%d of %d errors with the lead: %s", strings.Count(said, "This machine, not the network, refused a connection"),
		strings.Count(said, "Error: "), lead[0])
	raised, err := strconv.Atoi(lead[1])
	if err != nil {
		t.Fatal(err)
	}
	if out, _, err := plan(raised, fmt.Sprintf("-parallelism=%d", scores)); err != nil {
		t.Errorf("the plan under the limit the lead names (ulimit -n %d) failed:\n%s", raised, out)
	}
	out, held, err := plan(raised, "-parallelism=1")
	if err != nil {
		t.Fatalf("the plan at -parallelism=1 under the limit the lead names (ulimit -n %d) failed:\n%s", raised, out)
	}
	low := max(limit, held+2)
	t.Logf("a read at a time: the provider held at most %d files; -parallelism=1 runs under a limit of %d", held, low)
	if out, _, err := plan(low, "-parallelism=1"); err != nil {
		t.Errorf("the plan with a lower -parallelism (1) under a limit of %d failed:\n%s", low, out)
	}
}
