package provider

// The CI jobs the guides print, run as a runner runs them.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// actionsStep is a step of a GitHub Actions job: what it uses, or the script it runs.
type actionsStep struct {
	uses, run string
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
		switch {
		case strings.HasPrefix(item, "uses:"):
			steps = append(steps, actionsStep{uses: strings.TrimSpace(strings.TrimPrefix(item, "uses:"))})
		case item == "run: |":
			var block []string
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || indent(lines[i+1]) > indent(line)) {
				i++
				block = append(block, strings.TrimSpace(lines[i]))
			}
			steps = append(steps, actionsStep{run: strings.Join(block, "\n")})
		case strings.HasPrefix(item, "run:"):
			steps = append(steps, actionsStep{run: strings.TrimSpace(strings.TrimPrefix(item, "run:"))})
		}
	}
	return env, steps
}

// TestAccCIJobs_githubActionsApply runs the job of the guide "Running in CI"
// (examples/guides/running-in-ci/github-actions.yml) as the runner does, against the
// emulator: its env block with the repository's variables and secrets, each run step
// in bash -eo pipefail in the repository's checkout, with GITHUB_ENV and GITHUB_PATH
// carried to the next step; the checkouts are copies (the configuration's, and this
// checkout's sources for the provider's), setup-go and setup-terraform the tools on
// PATH. The provider's installation step builds it into a filesystem mirror that
// terraform init installs from; the apply publishes the configuration's scores, and
// the job run again changes nothing.
func TestAccCIJobs_githubActionsApply(t *testing.T) {
	terraformPath := cliForTests(t)
	for _, tool := range []string{"bash", "setsid", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	t.Parallel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	guide := filepath.Join(repo, "examples", "guides", "running-in-ci")
	env, steps := actionsJob(t, filepath.Join(guide, "github-actions.yml"))
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	cfg := emu.config()
	values := map[string]string{
		"MEDIAPLATFORM_ADMIN_URL": cfg.AdminURL, "MEDIAPLATFORM_PLATFORM_URL": cfg.PlatformURL,
		"MEDIAPLATFORM_ADMIN_USERNAME": cfg.AdminUsername, "MEDIAPLATFORM_ADMIN_PASSWORD": cfg.AdminPassword,
		"MEDIAPLATFORM_CLIENT_ID": cfg.ClientID, "MEDIAPLATFORM_CLIENT_SECRET": cfg.ClientSecret,
		"MEDIAPLATFORM_USERNAME": cfg.Username, "MEDIAPLATFORM_PASSWORD": cfg.Password,
	}
	expression := regexp.MustCompile(`\$\{\{\s*(?:vars|secrets)\.(\w+)\s*\}\}`)

	// The repository the job checks out: a configuration of one's own and the script.
	workspace := t.TempDir()
	name := accName()
	writeFile(t, filepath.Join(workspace, "main.tf"), fmt.Sprintf(`terraform {
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
	script, err := os.ReadFile(filepath.Join(guide, "ci-apply.sh"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(workspace, "ci-apply.sh"), string(script))
	runnerTemp := t.TempDir()
	githubEnv, githubPath := filepath.Join(runnerTemp, "github_env"), filepath.Join(runnerTemp, "github_path")
	gocache, _ := exec.CommandContext(t.Context(), "go", "env", "GOCACHE").Output()
	gomodcache, _ := exec.CommandContext(t.Context(), "go", "env", "GOMODCACHE").Output()
	base := append(cleanEnv(), "RUNNER_TEMP="+runnerTemp, "GITHUB_ENV="+githubEnv, "GITHUB_PATH="+githubPath,
		"GOPROXY=off", "GOCACHE="+strings.TrimSpace(string(gocache)), "GOMODCACHE="+strings.TrimSpace(string(gomodcache)))
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
		base = append(base, key+"="+value)
	}
	paths := []string{cliDir(t, terraformPath)}

	runJob := func() string {
		t.Helper()
		var out strings.Builder
		for i, step := range steps {
			switch {
			case strings.HasPrefix(step.uses, "actions/checkout@"):
				continue // the workspace is the checkout; the provider's is copied below
			case strings.HasPrefix(step.uses, "actions/setup-go@"), strings.HasPrefix(step.uses, "hashicorp/setup-terraform@"):
				continue // go and terraform are on PATH
			case step.uses != "":
				t.Fatalf("step %d uses %s, which the test does not stand in for", i+1, step.uses)
			}
			stepEnv := append([]string{}, base...)
			added, _ := os.ReadFile(githubEnv)
			stepEnv = append(stepEnv, strings.Fields(string(added))...)
			if extra, err := os.ReadFile(githubPath); err == nil {
				paths = append(strings.Fields(string(extra)), paths...)
			}
			stepEnv = append(stepEnv, "PATH="+strings.Join(append(paths, os.Getenv("PATH")), string(os.PathListSeparator)))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.run)
			cmd.Dir, cmd.Env = workspace, stepEnv
			printed, err := cmd.CombinedOutput()
			cancel()
			out.Write(printed)
			if err != nil {
				t.Fatalf("step %d (%q) failed: %v\n%s", i+1, step.run, err, printed)
			}
		}
		return out.String()
	}
	// The provider's checkout: this checkout's sources and the guide it builds with.
	clone := filepath.Join(workspace, ".mediaplatform-provider")
	for _, dir := range []string{"internal", "cmd", filepath.Join("examples", "guides", "testing")} {
		copyTree(t, filepath.Join(repo, dir), filepath.Join(clone, dir))
	}
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		copyTree(t, filepath.Join(repo, f), filepath.Join(clone, f))
	}

	runJob()
	if n := ctl.Stats().Scores; n != 2 {
		t.Errorf("after the job the platform holds %d scores, want 2", n)
	}
	if out := runJob(); !strings.Contains(out, "Resources: 0 added, 0 changed, 0 destroyed") {
		t.Errorf("the job run again changed something:\n%s", out)
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
