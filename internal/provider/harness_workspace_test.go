package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// cliForTests returns the CLI the acceptance tests use: TF_ACC_TERRAFORM_PATH (e.g. a
// newer Terraform or OpenTofu), else terraform on PATH. It skips the test without
// TF_ACC or a CLI.
func cliForTests(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
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
	writeFile(w.t, filepath.Join(w.dir, "main.tf"), `
terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
`+provider+resources)
}

// command returns the terraform command for args in the workspace, not yet started.
func (w *workspace) command(args ...string) *exec.Cmd {
	if slices.Contains([]string{"apply", "destroy", "import", "plan", "refresh"}, args[0]) {
		args = append(args, "-no-color", "-input=false")
	}
	cmd := exec.CommandContext(context.Background(), w.terraform, args...)
	cmd.Dir = w.dir
	cmd.Env = append(cleanEnv(), "TF_CLI_CONFIG_FILE="+w.cliConfig, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	cmd.Env = append(cmd.Env, w.env...)
	return cmd
}

// run runs terraform with args and returns its combined output; a failure fails the test.
func (w *workspace) run(args ...string) string {
	w.t.Helper()
	cmd := w.command(args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// attribute returns an attribute of a resource in the workspace's state, as `terraform
// show -json` gives it (sensitive values included); a failure fails the test.
func (w *workspace) attribute(address, name string) any {
	w.t.Helper()
	var show struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	out, err := w.command("show", "-json").Output()
	if err != nil {
		w.t.Fatalf("terraform show -json: %v", err)
	}
	if err := json.Unmarshal(out, &show); err != nil {
		w.t.Fatalf("reading terraform show -json: %v\n%s", err, out)
	}
	for _, r := range show.Values.RootModule.Resources {
		if r.Address == address {
			return r.Values[name]
		}
	}
	w.t.Fatalf("the state has no %s:\n%s", address, out)
	return nil
}

// cleanEnv is the process environment without the variables that would change what
// Terraform or the provider do (a developer's TF_* settings, MEDIAPLATFORM_* defaults).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "MEDIAPLATFORM_") || isProxyVariable(kv) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// isProxyVariable reports whether kv sets a proxy variable, which the tests that use a
// proxy set themselves.
func isProxyVariable(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	switch strings.ToUpper(name) {
	case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY":
		return true
	}
	return false
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
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

// providerBuild is the provider binary, built once per go test process for every
// test that runs it under the real CLI, and its CLI configuration. TestMain removes
// its directory at the end.
var providerBuild struct {
	once      sync.Once
	dir       string
	cliConfig string
	err       error
}

// providerCLIConfig returns a CLI configuration whose dev_overrides point Terraform at
// the provider binary, which the first call builds.
func providerCLIConfig(t *testing.T) string {
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
		build := exec.CommandContext(context.Background(), "go", "build", "-o", filepath.Join(pluginDir, "terraform-provider-mediaplatform"),
			"github.com/mediaplatform/terraform-provider-mediaplatform")
		if out, err := build.CombinedOutput(); err != nil {
			providerBuild.err = fmt.Errorf("building the provider: %w\n%s", err, out)
			return
		}
		cliConfig := filepath.Join(dir, "terraform.rc")
		providerBuild.err = os.WriteFile(cliConfig, fmt.Appendf(nil, `provider_installation {
  dev_overrides {
    "mediaplatform/mediaplatform" = %q
  }
  direct {}
}
`, pluginDir), 0o600)
		providerBuild.cliConfig = cliConfig
	})
	if providerBuild.err != nil {
		t.Fatal(providerBuild.err)
	}
	return providerBuild.cliConfig
}

// cliDir returns a folder in which `terraform` is the CLI at cli, to put first on the
// PATH of a script that runs `terraform` (the guide's ci-apply.sh and its steps): the
// CLI's own folder when it is named terraform, else a folder of the test's with a link
// named terraform to it. OpenTofu's binary is tofu: without the link, the script ran
// the Terraform found further on the PATH against a state the test's own commands had
// written with OpenTofu, whose provider addresses (registry.opentofu.org) Terraform
// cannot load ("failed to instantiate provider … to obtain schema: unavailable
// provider").
func cliDir(t *testing.T, cli string) string {
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

// removeProviderBuild removes the provider binary built for the run, if any.
func removeProviderBuild() {
	if providerBuild.dir != "" {
		_ = os.RemoveAll(providerBuild.dir)
	}
}

// cliWorkspaces skips the test without TF_ACC or a CLI (cliForTests), and returns
// how the test makes a workspace for the real CLI and the provider binary.
func cliWorkspaces(t *testing.T) func(t *testing.T, emu *testEmulator, resources string) *workspace {
	t.Helper()
	terraformPath := cliForTests(t)
	return func(t *testing.T, emu *testEmulator, resources string) *workspace {
		t.Helper()
		w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: providerCLIConfig(t), emu: emu}
		w.write(resources)
		return w
	}
}

// skipBelowCLI skips a CLI-driven test when the workspace's CLI is older than min (or
// is OpenTofu, whose version numbers do not follow Terraform's), saying which it is.
func (w *workspace) skipBelowCLI(minVersion string) {
	w.t.Helper()
	out, err := exec.CommandContext(w.t.Context(), w.terraform, "version", "-json").Output()
	if err != nil {
		w.t.Fatalf("%s version -json: %v", w.terraform, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		w.t.Fatalf("reading the CLI's version: %v\n%s", err, out)
	}
	have, err := version.NewVersion(v.Version)
	if err != nil {
		w.t.Fatalf("reading the CLI's version %q: %v", v.Version, err)
	}
	if isOpenTofu(w.t, w.terraform) || have.LessThan(version.Must(version.NewVersion(minVersion))) {
		w.t.Skipf("needs Terraform %s or later; the CLI is %s %s", minVersion, cliName(w.t, w.terraform), v.Version)
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
