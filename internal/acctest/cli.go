package acctest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// CLI returns the CLI the acceptance tests use: TF_ACC_TERRAFORM_PATH (e.g. a newer
// Terraform or OpenTofu), else terraform on PATH. It skips the test without TF_ACC or
// a CLI.
func CLI(t *testing.T) string {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	terraformPath := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if terraformPath == "" {
		var err error
		if terraformPath, err = exec.LookPath("terraform"); err != nil {
			t.Skip("terraform is not on PATH")
		}
	}
	return terraformPath
}

// RefuseSkippedAcc, called by a TestMain after flag.Parse, exits with status 2 when
// -run names acceptance tests and TF_ACC is not set: every TestAcc… test would skip
// and go test print "ok"; asked for by name, they fail instead of passing silently.
func RefuseSkippedAcc() {
	if run := flag.Lookup("test.run"); os.Getenv(resource.EnvTfAcc) == "" && run != nil && strings.Contains(run.Value.String(), "TestAcc") {
		fmt.Fprintf(os.Stderr, "-run %s asks for acceptance tests, and TF_ACC is not set, so they would all be skipped: "+
			"run them with TF_ACC=1 CHECKPOINT_DISABLE=1 (Terraform on PATH, or TF_ACC_TERRAFORM_PATH=/path/to/terraform)\n",
			run.Value.String())
		os.Exit(2)
	}
}

// CLIDir returns a folder in which `terraform` is the CLI at cli, to put first on the
// PATH of a script that runs `terraform` (the guide's ci-apply.sh and its steps): the
// CLI's own folder when it is named terraform, else a folder of the test's with a link
// named terraform to it. OpenTofu's binary is tofu: without the link, the script ran
// the Terraform found further on the PATH against a state the test's own commands had
// written with OpenTofu, whose provider addresses (registry.opentofu.org) Terraform
// cannot load ("failed to instantiate provider … to obtain schema: unavailable
// provider").
func CLIDir(t *testing.T, cli string) string {
	t.Helper()
	if filepath.Base(cli) == "terraform" {
		return filepath.Dir(cli)
	}
	dir := t.TempDir()
	if err := os.Symlink(cli, filepath.Join(dir, "terraform")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// CleanEnv is the process environment without the variables that would change what
// Terraform or the provider do (a developer's TF_* settings, MEDIAPLATFORM_* defaults,
// proxy variables, which the tests that use a proxy set themselves).
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "MEDIAPLATFORM_") || isProxyVariable(kv) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// isProxyVariable reports whether kv sets a proxy variable.
func isProxyVariable(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	switch strings.ToUpper(name) {
	case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY":
		return true
	}
	return false
}

// providerBuild is the provider binary, built once per go test process for every
// test that runs it under the real CLI, and its CLI configuration. The package's
// TestMain removes its directory at the end (RemoveProviderBuild).
var providerBuild struct {
	once      sync.Once
	dir       string
	cliConfig string
	err       error
}

// ProviderCLIConfig returns a CLI configuration whose dev_overrides point Terraform at
// the provider binary, which the first call builds.
func ProviderCLIConfig(t *testing.T) string {
	t.Helper()
	providerBuild.once.Do(func() {
		// Not t.TempDir: the binary outlives the first test; TestMain removes it.
		dir, err := os.MkdirTemp("", "terraform-provider-mediaplatform-") //nolint:usetesting // shared by every test of the run
		if err != nil {
			providerBuild.err = err
			return
		}
		providerBuild.dir = dir
		pluginDir := filepath.Join(dir, "plugin")
		// -trimpath as every build of the project (use-local-build.sh, scripts/lib.sh):
		// they share one set of compiled packages in Go's cache, and a copy of the
		// source in another directory recompiles only the packages that differ.
		build := exec.CommandContext(context.Background(), "go", "build", "-trimpath", "-o", filepath.Join(pluginDir, "terraform-provider-mediaplatform"),
			"github.com/mediaplatform/terraform-provider-mediaplatform")
		if out, err := build.CombinedOutput(); err != nil {
			providerBuild.err = fmt.Errorf("building the provider: %w\n%s", err, out)
			return
		}
		providerBuild.cliConfig, providerBuild.err = writeDevOverrides(dir, pluginDir)
	})
	if providerBuild.err != nil {
		t.Fatal(providerBuild.err)
	}
	return providerBuild.cliConfig
}

// ProviderBinary returns the path of the provider binary ProviderCLIConfig builds.
func ProviderBinary(t *testing.T) string {
	t.Helper()
	ProviderCLIConfig(t)
	return filepath.Join(providerBuild.dir, "plugin", "terraform-provider-mediaplatform")
}

// DevOverridesCLIConfig returns a CLI configuration of the test's whose dev_overrides
// point Terraform at pluginDir, a folder holding a terraform-provider-mediaplatform
// of the test's own (a script that runs ProviderBinary in some way, say).
func DevOverridesCLIConfig(t *testing.T, pluginDir string) string {
	t.Helper()
	cliConfig, err := writeDevOverrides(t.TempDir(), pluginDir)
	if err != nil {
		t.Fatal(err)
	}
	return cliConfig
}

// writeDevOverrides writes, in dir, a CLI configuration whose dev_overrides point at
// pluginDir, and returns its path.
func writeDevOverrides(dir, pluginDir string) (string, error) {
	cliConfig := filepath.Join(dir, "terraform.rc")
	return cliConfig, os.WriteFile(cliConfig, fmt.Appendf(nil, `provider_installation {
  dev_overrides {
    "mediaplatform/mediaplatform" = %q
  }
  direct {}
}
`, pluginDir), 0o600)
}

// RemoveProviderBuild removes the provider binary built for the run, if any.
func RemoveProviderBuild() {
	if providerBuild.dir != "" {
		_ = os.RemoveAll(providerBuild.dir)
	}
}

// SkipWithout skips the test, naming the first of tools that is not on PATH: a test
// that runs a recipe as printed needs the programs the recipe calls.
func SkipWithout(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
}
