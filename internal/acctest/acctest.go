// Package acctest is what the tests that run the real Terraform CLI share, as
// HashiCorp's providers have internal/acctest: the provider's acceptance tests
// (internal/provider) and the models of CI runners, containers and guides
// (internal/cimodels) both import it. It gives:
//
//   - CLI, CLIDir and RefuseSkippedAcc: the CLI under test (TF_ACC, TF_ACC_TERRAFORM_PATH);
//   - ProviderCLIConfig and RemoveProviderBuild: the provider binary, built once per go
//     test process, and a CLI configuration whose dev_overrides point at it;
//   - Workspace: a working directory with that configuration, and CleanEnv, the
//     environment its commands run in;
//   - Target, StartEmulator, StartProxied and StartGateway: an in-process emulator, on
//     its own, behind the fault-injecting proxy, or behind a gateway over TLS;
//   - the stand-in terraform (standin.go) and Processes, for the models of how a CI
//     job's stop reaches terraform;
//   - Name and ScoreURL, the names the tests create, which the sweeper recognises.
//
// What only the provider's tests use (its external-platform mode, the in-process
// provider server, the sweepers) stays in internal/provider's harness files.
package acctest

import (
	"os"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
)

// NamePrefix starts the name of every object the acceptance tests create (score
// aliases, score file names, domain names), so that the sweeper can find what an
// interrupted run left behind.
const NamePrefix = "tf-acc-"

// Name returns a fresh object name: NamePrefix and a random suffix.
func Name() string {
	return NamePrefix + acctest.RandStringFromCharSet(10, acctest.CharSetAlphaNum)
}

// ScoreURL is the address of a score file named name (which starts with NamePrefix,
// so that the sweeper also recognises scores without an alias).
func ScoreURL(name string) string {
	return "https://cdn.example/scores/" + name + ".sib"
}

// WriteFile writes content to name, or fails the test.
func WriteFile(t testing.TB, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// WaitFor polls cond until it holds or the deadline passes, and reports whether it held.
func WaitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for sleep := 5 * time.Millisecond; ; sleep = min(2*sleep, 100*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(sleep)
	}
}
