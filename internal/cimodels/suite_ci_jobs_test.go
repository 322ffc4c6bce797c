package cimodels

// The CI jobs the guides print, run as a runner runs them.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// actionsStep is a step of a GitHub Actions job: what it uses, or the script it runs
// and where.
type actionsStep struct {
	uses, run, dir string
}

// actionsJob reads the one job of a GitHub Actions workflow as the guides write it:
// the job's env block and its steps, each a `uses:` or a `run:` (one line, or a block
// after `run: |`).
func actionsJob(t *testing.T, path string) (env map[string]string, steps []actionsStep) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env = map[string]string{}
	indent := func(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }
	lines := strings.Split(string(raw), "\n")
	inEnv := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		switch {
		case indent(line) == 4 && trimmed == "env:":
			inEnv = true
			continue
		case indent(line) <= 4:
			inEnv = false
		}
		if inEnv && indent(line) == 6 {
			key, value, _ := strings.Cut(trimmed, ":")
			value, _, _ = strings.Cut(strings.TrimSpace(value), " #")
			env[key] = strings.Trim(strings.TrimSpace(value), `"`)
			continue
		}
		item := strings.TrimPrefix(trimmed, "- ")
		if indent(line) == 6 && strings.HasPrefix(trimmed, "- ") {
			steps = append(steps, actionsStep{})
		}
		step := &actionsStep{}
		if len(steps) > 0 {
			step = &steps[len(steps)-1]
		}
		switch {
		case strings.HasPrefix(item, "working-directory:"):
			step.dir = strings.TrimSpace(strings.TrimPrefix(item, "working-directory:"))
		case strings.HasPrefix(item, "uses:"):
			step.uses = strings.TrimSpace(strings.TrimPrefix(item, "uses:"))
		case item == "run: |":
			var block []string
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || indent(lines[i+1]) > indent(line)) {
				i++
				block = append(block, strings.TrimSpace(lines[i]))
			}
			step.run = strings.Join(block, "\n")
		case strings.HasPrefix(item, "run:"):
			step.run = strings.TrimSpace(strings.TrimPrefix(item, "run:"))
		}
	}
	return env, steps
}

// actionsRunner runs the steps of a GitHub Actions job in a checkout as the runner
// does: each run step in bash -eo pipefail, in the checkout or its working-directory,
// with the job's env and what earlier steps wrote to GITHUB_ENV and GITHUB_PATH. The
// checkouts are the test's (the workspace, and a copy of this checkout's sources for
// the provider's), setup-go and setup-terraform the tools on PATH. Each step runs in
// a process group of its own, stopped at the test's end with what it left running
// (an emulator started in the background).
type actionsRunner struct {
	t                     *testing.T
	workspace             string
	env                   []string
	githubEnv, githubPath string
	paths                 []string
}

// newActionsRunner prepares the job of workflow in workspace, the expressions of its
// env block (${{ vars.NAME }}, ${{ secrets.NAME }}) taken from values.
func newActionsRunner(t *testing.T, workflow, workspace, terraformPath string, values map[string]string) (*actionsRunner, []actionsStep) {
	t.Helper()
	env, steps := actionsJob(t, workflow)
	runnerTemp := t.TempDir()
	r := &actionsRunner{
		t: t, workspace: workspace, paths: []string{acctest.CLIDir(t, terraformPath)},
		githubEnv: filepath.Join(runnerTemp, "github_env"), githubPath: filepath.Join(runnerTemp, "github_path"),
	}
	gocache, _ := exec.CommandContext(t.Context(), "go", "env", "GOCACHE").Output()
	gomodcache, _ := exec.CommandContext(t.Context(), "go", "env", "GOMODCACHE").Output()
	r.env = append(acctest.CleanEnv(), "RUNNER_TEMP="+runnerTemp, "GITHUB_ENV="+r.githubEnv, "GITHUB_PATH="+r.githubPath,
		"GOPROXY=off", "GOCACHE="+strings.TrimSpace(string(gocache)), "GOMODCACHE="+strings.TrimSpace(string(gomodcache)))
	expression := regexp.MustCompile(`\$\{\{\s*(?:vars|secrets)\.(\w+)\s*\}\}`)
	for key, value := range env {
		var missing string
		value = expression.ReplaceAllStringFunc(value, func(e string) string {
			v, ok := values[expression.FindStringSubmatch(e)[1]]
			if !ok {
				missing = e
			}
			return v
		})
		if missing != "" {
			t.Fatalf("the job's env reads %s, which the test does not know", missing)
		}
		r.env = append(r.env, key+"="+value)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(workspace, ".mediaplatform-provider")
	for _, f := range []string{"go.mod", "go.sum", "main.go", "CHANGELOG.md", "internal", "cmd", filepath.Join("examples", "guides", "testing")} {
		copyTree(t, filepath.Join(repo, f), filepath.Join(clone, f))
	}
	return r, steps
}

// run runs steps and returns what they printed; a failed step fails the test.
func (r *actionsRunner) run(steps []actionsStep) string {
	t := r.t
	t.Helper()
	var out strings.Builder
	for i, step := range steps {
		switch {
		case strings.HasPrefix(step.uses, "actions/checkout@"):
			continue // the workspace is the checkout; the provider's is a copy
		case strings.HasPrefix(step.uses, "actions/setup-go@"), strings.HasPrefix(step.uses, "hashicorp/setup-terraform@"):
			continue // go and terraform are on PATH
		case step.uses != "":
			t.Fatalf("step %d uses %s, which the test does not stand in for", i+1, step.uses)
		}
		env := append([]string{}, r.env...)
		added, _ := os.ReadFile(r.githubEnv)
		env = append(env, strings.Fields(string(added))...)
		extra, _ := os.ReadFile(r.githubPath)
		paths := append(strings.Fields(string(extra)), r.paths...)
		env = append(env, "PATH="+strings.Join(append(paths, os.Getenv("PATH")), string(os.PathListSeparator)))
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.run)
		cmd.Dir, cmd.Env = filepath.Join(r.workspace, step.dir), env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		// A file, not a pipe: a process the step leaves running holds it open.
		printed, err := os.CreateTemp(t.TempDir(), "step")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = printed, printed
		err = cmd.Start()
		if err == nil {
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) })
			err = cmd.Wait()
		}
		cancel()
		_ = printed.Close()
		text, _ := os.ReadFile(printed.Name())
		out.Write(text)
		if err != nil {
			t.Fatalf("step %d (%q) failed: %v\n%s", i+1, step.run, err, text)
		}
	}
	return out.String()
}

// accountValues are the repository's variables and secrets a job reads: the
// emulator's addresses and accounts.
func accountValues(emu *acctest.Target) map[string]string {
	cfg := emu.Config
	return map[string]string{
		"MEDIAPLATFORM_ADMIN_URL": cfg.AdminURL, "MEDIAPLATFORM_PLATFORM_URL": cfg.PlatformURL,
		"MEDIAPLATFORM_ADMIN_USERNAME": cfg.AdminUsername, "MEDIAPLATFORM_ADMIN_PASSWORD": cfg.AdminPassword,
		"MEDIAPLATFORM_CLIENT_ID": cfg.ClientID, "MEDIAPLATFORM_CLIENT_SECRET": cfg.ClientSecret,
		"MEDIAPLATFORM_USERNAME": cfg.Username, "MEDIAPLATFORM_PASSWORD": cfg.Password,
	}
}

// TestAccCIJobs_githubActionsApply runs the job of the guide "Running in CI"
// (examples/guides/running-in-ci/github-actions.yml) as the runner does
// (actionsRunner), against the emulator, in a checkout holding a configuration of two
// scores and ci-apply.sh. The installation step builds the provider into a filesystem
// mirror that terraform init installs from; the apply publishes both scores, and the
// job run again changes nothing. Without the installation step it fails at terraform
// init, as a job that installs no provider does.
func TestAccCIJobs_githubActionsApply(t *testing.T) {
	terraformPath := acctest.CLI(t)
	acctest.SkipWithout(t, "bash", "setsid", "go")
	t.Parallel()
	guide := filepath.Join("..", "..", "examples", "guides", "running-in-ci")
	emu := acctest.StartEmulator(t, emulator.Options{RenderDelay: acctest.RenderDelay})
	ctl := emu.Emulator
	workspace := t.TempDir()
	name := acctest.Name()
	acctest.WriteFile(t, filepath.Join(workspace, "main.tf"), fmt.Sprintf(`terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}

provider "mediaplatform" {}

resource "mediaplatform_score" "ci" {
  count     = 2
  score_url = "https://cdn.example/scores/%s-${count.index}.sib"
  score_id  = "%s-${count.index}"
}
`, name, name))
	copyTree(t, filepath.Join(guide, "ci-apply.sh"), filepath.Join(workspace, "ci-apply.sh"))
	runner, steps := newActionsRunner(t, filepath.Join(guide, "github-actions.yml"), workspace, terraformPath, accountValues(emu))
	runner.run(steps)
	if n := ctl.Stats().Scores; n != 2 {
		t.Errorf("after the job the platform holds %d scores, want 2", n)
	}
	if out := runner.run(steps); !strings.Contains(out, "Resources: 0 added, 0 changed, 0 destroyed") {
		t.Errorf("the job run again changed something:\n%s", out)
	}
}

// TestAccCIJobs_githubActionsModuleTests runs the job of the guide "Testing your
// configuration" (examples/guides/testing/github-actions.yml) as the runner does
// (actionsRunner), in a checkout holding the example module with its tests and the
// guide's seed in tests/platform: the installation step builds the provider and the
// emulator, the job starts the emulator and exports its env file, and both layers of
// terraform test pass. Before, the job installed the emulator with go install …@latest
// and ran terraform init against a provider in no registry.
func TestAccCIJobs_githubActionsModuleTests(t *testing.T) {
	terraformPath := acctest.CLI(t)
	acctest.SkipWithout(t, "bash", "go")
	t.Parallel()
	examples := filepath.Join("..", "..", "examples")
	workspace := t.TempDir()
	for _, f := range []string{"main.tf", "tests"} {
		copyTree(t, filepath.Join(examples, "modules", "score-catalogue", f), filepath.Join(workspace, f))
	}
	copyTree(t, filepath.Join(examples, "guides", "testing", "seed.json"), filepath.Join(workspace, "tests", "platform", "seed.json"))
	runner, steps := newActionsRunner(t, filepath.Join(examples, "guides", "testing", "github-actions.yml"), workspace,
		terraformPath, nil)
	out := runner.run(steps)
	if n := strings.Count(out, "Success!"); n != 2 {
		t.Errorf("%d terraform test runs succeeded, want 2 (the mock and the emulator's):\n%s", n, out)
	}
}

// copyTree copies the file or directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(t.Context(), "cp", "-R", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -R %s %s: %v\n%s", src, dst, err, out)
	}
}
