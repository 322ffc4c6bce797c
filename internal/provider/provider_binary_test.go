package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccProviderBinary runs the real provider binary under the real Terraform CLI, as
// a user does: through a dev_overrides CLI configuration, one provider process per
// Terraform phase, each ended by Terraform's graceful shutdown. It proves that every
// process logs out its administrator session and removes its platform token when it
// ends, shows the warnings users read, and records the requests each command costs.
func TestAccProviderBinary(t *testing.T) {
	terraformPath := cliForTests(t)
	t.Parallel()

	cliConfig := buildProviderForCLI(t)
	newWorkspace := func(t *testing.T, emu *testEmulator, resources string) *workspace {
		w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: cliConfig, emu: emu}
		w.write(resources)
		return w
	}

	// The fault tests that need a real terraform process, defined beside their kind.
	for _, sub := range []struct {
		name string
		run  func(*testing.T, func(*testing.T, *testEmulator, string) *workspace)
	}{
		{"interrupt during publish", testInterruptedPublish},
		{"rate limit at -parallelism=50", testRateLimitedParallelApply},
		{"echoed secrets are masked", testEchoedSecrets},
		{"close at 1 s per request", testCloseUnderLatency},
		{"log lines name their resource", testLogLines},
		{"adopt 250 scores with terraform query", testAdoptWithQuery},
		{"adopt scores with import for_each", testAdoptWithForEach},
		{"the same score imported twice", testDuplicateImport},
		{"batched refresh of 150 scores", testBatchedRefresh},
		{"cancel a command with -invoke", testInvokeCancelCommand},
		{"two states, one alias, a lost publish answer", testTwoStatesOneAlias},
		{"destroy through a catch-all front end", testCatchAllDestroy},
		{"interrupted refresh", testInterruptedRefresh},
		{"first sentences from the environment", testFirstSentencesFromTheEnvironment},
		{"platform gone during apply", testPlatformGoneDuringApply},
		{"expired view advice", testExpiredViewAdvice},
		{"a forward proxy that refuses, fails or is down", testProxyLeads},
		{"a forward proxy that refuses the tunnel, or is bypassed", testRefusedTunnels},
		{"the corporate networks guide, stopped by its time limit", testCorporateGuide},
		{"every setting from its environment variable alone", testEverySettingFromTheEnvironment},
		{"the corporate networks guide's CI recipe, from the environment through a proxy", testCorporateGuideFromTheEnvironment},
		{"30 creates share their rendering wait", testSharedRenderWait},
		{"warnings of a platform restored, and of scores adopted after a hard kill", testWarningsOfAChangedPlatform},
		{"kill -9 mid-apply, recovered by adopt_unrecorded in one apply", testHardKillRecovery},
	} {
		t.Run(sub.name, func(t *testing.T) {
			t.Parallel()
			sub.run(t, newWorkspace)
		})
	}

	t.Run("logout after every command", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulator(t)
		ctl := emu.control(t, "live session and token counts")
		w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
resource "mediaplatform_score" "test" {
  score_url = %q
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.test.id
}
`, accDomain(), accScoreURL(accName())))
		for i, args := range [][]string{
			{"plan"},
			{"apply", "-auto-approve"},
			{"plan"},
			{"destroy", "-auto-approve"},
		} {
			before := ctl.Stats()
			w.run(args...)
			after := ctl.Stats()
			if after.LiveSessions != 0 || after.LiveTokens != 0 {
				t.Errorf("after terraform %s: %d live admin sessions and %d live platform tokens, want 0 and 0",
					args[0], after.LiveSessions, after.LiveTokens)
			}
			// The first plan has nothing to refresh and must not log in; every later
			// command logs in both ways, so the zero counts above are logouts.
			switch n := after.Logins["admin"] - before.Logins["admin"]; {
			case i == 0 && after.TotalRequests() != 0:
				t.Errorf("planning new objects made %d requests, want none", after.TotalRequests())
			case i > 0 && (n == 0 || after.Logins["oauth"] == before.Logins["oauth"]):
				t.Errorf("terraform %s did not log in both ways (admin %d, oauth %d); the test proves nothing",
					args[0], n, after.Logins["oauth"]-before.Logins["oauth"])
			}
		}
	})

	t.Run("request counts", func(t *testing.T) {
		t.Parallel()
		name := accName()
		for _, c := range []struct{ name, config string }{
			{"mediaplatform_external_authentication", fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 389 }]
}
`, accDomain())},
			{"mediaplatform_score", fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = %q
}
`, accScoreURL(name), name)},
			{"mediaplatform_score_view", `
resource "mediaplatform_score_view" "test" {
  score = %q
}
`},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				emu := newTestEmulator(t)
				ctl := emu.control(t, "request counts")
				config := c.config
				if c.name == "mediaplatform_score_view" {
					config = fmt.Sprintf(config, publishTestScore(t, emu).Alias)
				}
				w := newWorkspace(t, emu, config)
				for _, step := range []struct {
					what string
					args []string
				}{
					{"create (terraform apply)", []string{"apply", "-auto-approve"}},
					{"refresh (terraform plan)", []string{"plan"}},
					{"destroy (terraform destroy)", []string{"destroy", "-auto-approve"}},
				} {
					before := ctl.Stats()
					w.run(step.args...)
					after := ctl.Stats()
					t.Logf("%s %s: %d requests %s", c.name, step.what,
						after.TotalRequests()-before.TotalRequests(), requestDelta(before, after))
					if after.LiveSessions != 0 || after.LiveTokens != 0 {
						t.Errorf("after %s: %d live sessions, %d live tokens; want 0", step.what, after.LiveSessions, after.LiveTokens)
					}
				}
			})
		}
	})

	t.Run("retain warns and keeps the settings", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulator(t)
		emu.takeSettings(t)
		domain := accDomain()
		w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name     = %q
  enabled         = true
  deletion_policy = "retain"
}
`, domain))
		w.run("apply", "-auto-approve")
		out := w.run("destroy", "-auto-approve")
		if !errorPattern("Warning: External authentication settings retained", "left unchanged on the platform").MatchString(out) {
			t.Errorf("destroy output lacks the retain warning:\n%s", out)
		}
		if err := expectSettings(t, emu, client.ExternalAuthentication{DomainName: domain, Enabled: true}); err != nil {
			t.Error(err)
		}
	})

	// A view of 2 minutes with renew_before 100 ms shorter: every plan after the first
	// 100 ms replaces it while it is still live, however loaded the machine (with a view
	// of 2 s, a slow plan met it expired and the warning rightly said so instead).
	t.Run("view renewal says why", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulator(t)
		alias := publishTestScore(t, emu).Alias
		w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score        = %q
  expires_in   = 120
  renew_before = "119.9s"
}
`, alias))
		w.run("apply", "-auto-approve")
		out := w.run("plan")
		for _, want := range []*regexp.Regexp{
			errorPattern("mediaplatform_score_view.test must be replaced"),
			errorPattern("expires_at", "# forces replacement"),
			errorPattern("Warning: Score view will be replaced", `of score "`+alias+`" expires in`, "less than renew_before (119.9s)"),
		} {
			if !want.MatchString(out) {
				t.Errorf("plan output lacks %q:\n%s", want, out)
			}
		}
	})
}

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

// buildProviderForCLI builds the provider binary and returns a CLI configuration
// whose dev_overrides point Terraform at it.
func buildProviderForCLI(t *testing.T) string {
	t.Helper()
	pluginDir := t.TempDir()
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(pluginDir, "terraform-provider-mediaplatform"),
		"github.com/mediaplatform/terraform-provider-mediaplatform")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(t.TempDir(), "terraform.rc")
	writeFile(t, cliConfig, fmt.Sprintf(`provider_installation {
  dev_overrides {
    "mediaplatform/mediaplatform" = %q
  }
  direct {}
}
`, pluginDir))
	return cliConfig
}
