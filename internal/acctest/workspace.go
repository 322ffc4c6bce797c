package acctest

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Workspace is a Terraform working directory using the built provider.
type Workspace struct {
	T         *testing.T
	Terraform string   // the CLI
	Dir       string   // the working directory
	CLIConfig string   // TF_CLI_CONFIG_FILE: ProviderCLIConfig's
	Provider  string   // the provider block Write puts in main.tf
	Env       []string // more environment variables for terraform and the provider
}

// NewWorkspace returns a workspace in a fresh directory of the test's for the CLI at
// terraform and the provider of target, with main.tf written for resources.
func NewWorkspace(t *testing.T, terraform string, target *Target, resources string) *Workspace {
	t.Helper()
	w := &Workspace{T: t, Terraform: terraform, Dir: t.TempDir(), CLIConfig: ProviderCLIConfig(t), Provider: target.ProviderConfig()}
	w.Write(resources)
	return w
}

// Write writes main.tf: the provider requirement, the provider block and resources.
func (w *Workspace) Write(resources string) {
	w.WriteProvider(w.Provider, resources)
}

// WriteProvider writes main.tf with the provider block given.
func (w *Workspace) WriteProvider(provider, resources string) {
	w.T.Helper()
	WriteFile(w.T, filepath.Join(w.Dir, "main.tf"), `
terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
`+provider+resources)
}

// Command returns the terraform command for args in the workspace, not yet started.
func (w *Workspace) Command(args ...string) *exec.Cmd {
	if slices.Contains([]string{"apply", "destroy", "import", "plan", "refresh"}, args[0]) {
		// Before the arguments: options after an import's address and id are refused.
		args = append([]string{args[0], "-no-color", "-input=false"}, args[1:]...)
	}
	cmd := exec.CommandContext(context.Background(), w.Terraform, args...)
	cmd.Dir = w.Dir
	cmd.Env = append(CleanEnv(), "TF_CLI_CONFIG_FILE="+w.CLIConfig, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	cmd.Env = append(cmd.Env, w.Env...)
	return cmd
}

// Run runs terraform with args and returns its combined output; a failure fails the test.
func (w *Workspace) Run(args ...string) string {
	w.T.Helper()
	out, err := w.Command(args...).CombinedOutput()
	if err != nil {
		w.T.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Attribute returns an attribute of a resource in the workspace's state, as `terraform
// show -json` gives it (sensitive values included); a failure fails the test.
func (w *Workspace) Attribute(address, name string) any {
	w.T.Helper()
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
	out, err := w.Command("show", "-json").Output()
	if err != nil {
		w.T.Fatalf("terraform show -json: %v", err)
	}
	if err := json.Unmarshal(out, &show); err != nil {
		w.T.Fatalf("reading terraform show -json: %v\n%s", err, out)
	}
	for _, r := range show.Values.RootModule.Resources {
		if r.Address == address {
			return r.Values[name]
		}
	}
	w.T.Fatalf("the state has no %s:\n%s", address, out)
	return nil
}
