package provider

import (
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// The helpers of internal/acctest under the names the provider's tests use.
var (
	cliForTests       = acctest.CLI
	cliDir            = acctest.CLIDir
	cleanEnv          = acctest.CleanEnv
	providerCLIConfig = acctest.ProviderCLIConfig
	writeFile         = acctest.WriteFile
	waitFor           = acctest.WaitFor
	skipWithout       = acctest.SkipWithout
)

// workspace is a Terraform working directory using the built provider.
type workspace struct {
	t         *testing.T
	terraform string
	dir       string
	cliConfig string
	emu       *testEmulator
	env       []string // more environment variables for terraform and the provider
}

func (w *workspace) write(resources string) {
	w.writeProvider(w.emu.providerConfig(), resources)
}

// writeWith writes the configuration with more provider arguments.
func (w *workspace) writeWith(arguments, resources string) {
	w.writeProvider(providerConfigPlus(w.emu, arguments), resources)
}

func (w *workspace) writeProvider(provider, resources string) {
	w.t.Helper()
	w.shared().WriteProvider(provider, resources)
}

// shared is the workspace as acctest's, whose methods run its commands.
func (w *workspace) shared() *acctest.Workspace {
	return &acctest.Workspace{T: w.t, Terraform: w.terraform, Dir: w.dir, CLIConfig: w.cliConfig, Env: w.env}
}

// command returns the terraform command for args in the workspace, not yet started.
func (w *workspace) command(args ...string) *exec.Cmd { return w.shared().Command(args...) }

// run runs terraform with args and returns its combined output; a failure fails the test.
func (w *workspace) run(args ...string) string {
	w.t.Helper()
	return w.shared().Run(args...)
}

// attribute returns an attribute of a resource in the workspace's state, as `terraform
// show -json` gives it (sensitive values included); a failure fails the test.
func (w *workspace) attribute(address, name string) any {
	w.t.Helper()
	return w.shared().Attribute(address, name)
}

// requestDelta formats the per-route request counts between two snapshots.
func requestDelta(before, after emulator.Stats) string {
	var parts []string
	for _, route := range slices.Sorted(maps.Keys(after.Requests)) {
		if n := after.Requests[route] - before.Requests[route]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", route, n))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// cliWorkspaces skips the test without TF_ACC or a CLI (acctest.CLI), and returns
// how the test makes a workspace for the real CLI and the provider binary.
func cliWorkspaces(t *testing.T) func(t *testing.T, emu *testEmulator, resources string) *workspace {
	t.Helper()
	terraformPath := acctest.CLI(t)
	return func(t *testing.T, emu *testEmulator, resources string) *workspace {
		t.Helper()
		w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: acctest.ProviderCLIConfig(t), emu: emu}
		w.write(resources)
		return w
	}
}

// skipBelowCLI skips a CLI-driven test when the workspace's CLI is older than min (or
// is OpenTofu, whose version numbers do not follow Terraform's), saying which it is.
func (w *workspace) skipBelowCLI(minVersion string) {
	w.t.Helper()
	have := cliVersionOf(w.t, w.terraform)
	if isOpenTofu(w.t, w.terraform) || have.LessThan(version.Must(version.NewVersion(minVersion))) {
		w.t.Skipf("needs Terraform %s or later; the CLI is %s %s", minVersion, cliName(w.t, w.terraform), have)
	}
}

// isOpenTofu reports whether the CLI at path is OpenTofu.
func isOpenTofu(t *testing.T, path string) bool {
	return cliName(t, path) == "OpenTofu"
}

// cliName is "OpenTofu" or "Terraform", from the CLI's own version line.
func cliName(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), path, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	if strings.HasPrefix(strings.TrimSpace(string(out)), "OpenTofu") {
		return "OpenTofu"
	}
	return "Terraform"
}
