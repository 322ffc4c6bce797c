package provider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-version"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
)

// inProcessWorkspace is a Terraform working directory whose every command reaches a
// fresh provider instance served by this test process, as the test framework serves
// them (TF_REATTACH_PROVIDERS), and closed with the test's other instances at its end.
//
// It is for a test that runs one short sequence over many cases (every reading, every
// answer member): a case is an apply, the plans without and with a refresh that must
// be empty, a show of the state and the destroy, five commands where the framework's
// steps run thirteen (a version check and an init per case, a show of every saved
// plan, a plan and an apply apart). Terraform's own work per case is the same.
type inProcessWorkspace struct {
	t       *testing.T
	ws      *acctest.Workspace
	factory func() (tfprotov6.ProviderServer, error)
	// destroyed is set once the destroy ran: until then, the test's end destroys
	// what the state holds.
	destroyed bool
}

// inProcessAddresses are the provider's addresses in acctest.Workspace's
// configurations, the names its served instances are attached under: Terraform's,
// and OpenTofu's, whose registry a source without a host names.
var inProcessAddresses = []string{"registry.terraform.io/mediaplatform/mediaplatform", "registry.opentofu.org/mediaplatform/mediaplatform"}

// newInProcessWorkspace writes the provider block and resources of a configuration
// into a new working directory. It skips the test without TF_ACC or a CLI.
func newInProcessWorkspace(t *testing.T, provider, resources string) *inProcessWorkspace {
	t.Helper()
	terraformPath := acctest.CLI(t)
	dir := t.TempDir()
	cliConfig := filepath.Join(dir, ".terraformrc") // no overrides, no installation: the instance is attached
	acctest.WriteFile(t, cliConfig, "")
	var tp trackedProviders
	t.Cleanup(func() { tp.closeClients(t) })
	w := &inProcessWorkspace{
		t:       t,
		ws:      &acctest.Workspace{T: t, Terraform: terraformPath, Dir: dir, CLIConfig: cliConfig},
		factory: tp.factories()["mediaplatform"],
	}
	w.ws.WriteProvider(provider, resources)
	// Registered after the clients' close, so run before it: what a failed test left
	// is destroyed while the platform still answers, by instances closed after it.
	t.Cleanup(func() {
		if !w.destroyed {
			if out, err := w.terraform("destroy", "-auto-approve"); err != nil {
				t.Errorf("destroying what the test left: %v\n%s", err, out)
			}
		}
	})
	return w
}

// terraform runs the CLI with args against a provider instance served for this
// command alone, and returns its combined output.
func (w *inProcessWorkspace) terraform(args ...string) (string, error) {
	cmd := w.ws.Command(args...)
	stop, err := w.serve(cmd)
	if err != nil {
		return "", err
	}
	defer stop()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// serve serves a provider instance for cmd alone, and sets cmd's environment to
// attach to it; stop ends it once cmd has run.
func (w *inProcessWorkspace) serve(cmd *exec.Cmd) (stop func(), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig)
	closed := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve(inProcessAddresses[0], func() tfprotov6.ProviderServer {
			server, err := w.factory()
			if err != nil {
				w.t.Errorf("making a provider instance: %v", err)
			}
			return server
		},
			tf6server.WithDebug(ctx, reattach, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithoutLogStderrOverride(),
			tf6server.WithLoggingSink(w.t), // as the test framework serves them: logs only where TF_LOG_PATH_MASK asks
		)
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case err := <-served:
		cancel()
		return nil, errors.Join(errors.New("serving the provider ended before Terraform could attach"), err)
	case <-time.After(time.Minute):
		cancel()
		return nil, errors.New("serving the provider: no address to attach to within a minute")
	}
	stop = func() { cancel(); <-closed }
	instance := map[string]any{
		"Protocol": string(rc.Protocol), "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": rc.Test,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}
	attach := map[string]any{}
	for _, address := range inProcessAddresses {
		attach[address] = instance
	}
	env, err := json.Marshal(attach)
	if err != nil {
		stop()
		return nil, err
	}
	cmd.Env = append(cmd.Env, "TF_REATTACH_PROVIDERS="+string(env))
	return stop, nil
}

// variables writes the values of the configuration's variables.
func (w *inProcessWorkspace) variables(vars config.Variables) {
	w.t.Helper()
	if err := vars.Write(w.ws.Dir); err != nil {
		w.t.Fatal(err)
	}
}

// run runs the CLI with args; a failure fails the test.
func (w *inProcessWorkspace) run(args ...string) string {
	w.t.Helper()
	out, err := w.terraform(args...)
	if err != nil {
		w.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// apply applies the configuration.
func (w *inProcessWorkspace) apply() { w.t.Helper(); w.run("apply", "-auto-approve") }

// applyFails applies the configuration, which must fail with output matching want.
func (w *inProcessWorkspace) applyFails(want *regexp.Regexp) {
	w.t.Helper()
	out, err := w.terraform("apply", "-auto-approve")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !want.MatchString(out) {
		w.t.Fatalf("terraform apply: %v, want a failure matching %s:\n%s", err, want, out)
	}
}

// expectEmptyPlans plans without a refresh and with one, as the test framework does
// after an apply: each must plan no change.
func (w *inProcessWorkspace) expectEmptyPlans() {
	w.t.Helper()
	for _, refresh := range []string{"-refresh=false", "-refresh=true"} {
		out, err := w.terraform("plan", "-detailed-exitcode", refresh)
		if err != nil {
			w.t.Fatalf("terraform plan %s after the apply: %v, want no changes:\n%s", refresh, err, out)
		}
	}
}

// state returns the state as `terraform show -json` gives it.
func (w *inProcessWorkspace) state() *tfjson.State {
	w.t.Helper()
	cmd := w.ws.Command("show", "-json")
	stop, err := w.serve(cmd)
	if err != nil {
		w.t.Fatal(err)
	}
	out, err := cmd.Output()
	stop()
	if err != nil {
		w.t.Fatalf("terraform show -json: %v", err)
	}
	var state tfjson.State
	state.UseJSONNumber(true) // numbers as the state checks read them, as the test framework gives them
	if err := json.Unmarshal(out, &state); err != nil {
		w.t.Fatalf("reading terraform show -json: %v\n%s", err, out)
	}
	return &state
}

// checkState runs the checks on the state.
func (w *inProcessWorkspace) checkState(checks ...statecheck.StateCheck) {
	w.t.Helper()
	state := w.state()
	for _, check := range checks {
		var resp statecheck.CheckStateResponse
		check.CheckState(context.Background(), statecheck.CheckStateRequest{State: state}, &resp)
		if resp.Error != nil {
			w.t.Error(resp.Error)
		}
	}
}

// importVerify imports address by id into an empty state of the same configuration
// and compares the imported object with the state's, attribute by attribute, leaving
// out those named in ignore.
func (w *inProcessWorkspace) importVerify(address, id string, ignore ...string) {
	w.t.Helper()
	want := resourceValues(w.t, w.state(), address)
	dir := w.t.TempDir()
	main, err := os.ReadFile(filepath.Join(w.ws.Dir, "main.tf"))
	if err != nil {
		w.t.Fatal(err)
	}
	acctest.WriteFile(w.t, filepath.Join(dir, "main.tf"), string(main))
	imported := *w
	ws := *w.ws
	ws.Dir = dir
	imported.ws = &ws
	imported.run("import", address, id)
	got := resourceValues(w.t, imported.state(), address)
	for _, name := range ignore {
		delete(want, name)
		delete(got, name)
	}
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(got)
	if string(wantJSON) != string(gotJSON) {
		w.t.Errorf("the import of %s by %q reads\n%s\nthe state after the apply holds\n%s", address, id, gotJSON, wantJSON)
	}
}

// destroy destroys what the state holds.
func (w *inProcessWorkspace) destroy() {
	w.t.Helper()
	w.destroyed = true
	w.run("destroy", "-auto-approve")
}

// cliVersionOf is the version the CLI at path gives, as the test framework's
// version checks compare it: OpenTofu's by its own number.
func cliVersionOf(t *testing.T, path string) *version.Version {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), path, "version", "-json")
	cmd.Env = append(acctest.CleanEnv(), "CHECKPOINT_DISABLE=1") // as the workspaces run it: no CLI configuration of this machine's
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version -json: %v", path, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("reading the CLI's version: %v\n%s", err, out)
	}
	have, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatalf("reading the CLI's version %q: %v", v.Version, err)
	}
	return have
}

// resourceValues are the attributes of the root module's resource at address.
func resourceValues(t *testing.T, state *tfjson.State, address string) map[string]any {
	t.Helper()
	if state.Values != nil && state.Values.RootModule != nil {
		for _, r := range state.Values.RootModule.Resources {
			if r.Address == address {
				return r.AttributeValues
			}
		}
	}
	t.Fatalf("the state holds no %s", address)
	return nil
}
