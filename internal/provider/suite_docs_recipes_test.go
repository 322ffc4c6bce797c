package provider

// The recipes of the documentation run as printed: a user pastes each block into one
// terminal, one after the other.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// docBlock is a fenced code block of a documentation page, without the indentation
// of the list item it stands in.
type docBlock struct {
	lang, text string
}

// docBlocks returns the fenced code blocks of page, in order.
func docBlocks(t *testing.T, page string) []docBlock {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return docBlocksOf(string(raw))
}

// docBlocksOf returns the fenced code blocks of markdown text, in order.
func docBlocksOf(text string) []docBlock {
	var blocks []docBlock
	for _, m := range regexp.MustCompile("(?ms)^([ \t]*)```(\\w+)\n(.*?)\n[ \t]*```$").FindAllStringSubmatch(text, -1) {
		lines := strings.Split(m[3], "\n")
		for i, line := range lines {
			lines[i] = strings.TrimPrefix(line, m[1])
		}
		blocks = append(blocks, docBlock{lang: m[2], text: strings.Join(lines, "\n")})
	}
	return blocks
}

// TestAccDocsIndex_shellBlocksAsPrinted runs the shell blocks of docs/index.md as a
// user pasting them into one terminal does, in a fresh home directory: the clone (a
// local copy of this checkout, as the network is not for tests), the build of the
// provider and the emulator, the CLI configuration (the hcl block, written where its
// first line says, with the home directory for /home/you), the emulator's start, a
// plan of a configuration of one's own against it, and the change outside Terraform.
// Each block must succeed whole. Before, the emulator's start sourced emulator.env on
// the next line, before the emulator had written it: "./emulator.env: No such file or
// directory".
func TestAccDocsIndex_shellBlocksAsPrinted(t *testing.T) {
	terraformPath := cliForTests(t)
	skipWithout(t, "bash", "curl", "go")
	t.Parallel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	bin := filepath.Join(home, "test-bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// git clone of the repository's address copies this checkout's sources.
	writeFile(t, filepath.Join(bin, "git"), fmt.Sprintf(`#!/usr/bin/env bash
set -eu
[ "$1" = clone ] || { echo "git: only clone is stood in for" >&2; exit 2; }
dest=${3:-$(basename "$2" .git)}
mkdir -p "$dest"
cp -R %q/go.mod %q/go.sum %q/main.go %q/internal %q/cmd "$dest"/
`, repo, repo, repo, repo, repo))
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("set -eo pipefail\ncd \"$HOME\"\n")
	shells := 0
	for _, b := range docBlocks(t, filepath.Join(repo, "docs", "index.md")) {
		switch {
		case b.lang == "shell":
			shells++
			fmt.Fprintf(&script, "echo '::block %d'\n%s\n", shells, b.text)
		case b.lang == "hcl" && strings.HasPrefix(b.text, "# ~/"):
			first, _, _ := strings.Cut(b.text, "\n")
			path := strings.Replace(strings.TrimPrefix(first, "# "), "~", "$HOME", 1)
			content := strings.ReplaceAll(b.text, "/home/you", "'\"$HOME\"'")
			fmt.Fprintf(&script, "printf '%%s\\n' '%s' >%s\n", content, path)
		}
	}
	if shells < 3 {
		t.Fatalf("docs/index.md has %d shell blocks, want the build, the CLI configuration and the emulator's start", shells)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = home
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	gocache, _ := exec.CommandContext(t.Context(), "go", "env", "GOCACHE").Output()
	gomodcache, _ := exec.CommandContext(t.Context(), "go", "env", "GOMODCACHE").Output()
	cmd.Env = append(cleanEnv(), "HOME="+home, "CHECKPOINT_DISABLE=1", "GOPROXY=off",
		"GOCACHE="+strings.TrimSpace(string(gocache)), "GOMODCACHE="+strings.TrimSpace(string(gomodcache)),
		"PATH="+bin+string(os.PathListSeparator)+cliDir(t, terraformPath)+string(os.PathListSeparator)+os.Getenv("PATH"))
	// A file, not a pipe: the emulator the blocks leave running holds it open, and
	// Wait would wait for a pipe's end.
	out, err := os.Create(filepath.Join(t.TempDir(), "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The emulator the blocks start in the background is in the script's process
	// group: stop it, and anything else the blocks left, whatever the outcome.
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) })
	err = cmd.Wait()
	printed, readErr := os.ReadFile(out.Name())
	if readErr != nil {
		t.Fatal(readErr)
	}
	text := string(printed)
	if err != nil {
		t.Fatalf("the index's shell blocks failed (%v):\n%s", err, text)
	}
	if !strings.Contains(text, "No changes.") && !strings.Contains(text, "Plan:") {
		t.Errorf("no plan was made against the emulator:\n%s", text)
	}
}

// TestAccDocsRunningInCI_stoppedRunPrintsWhatTheGuideSays stops an apply of 40 scores
// with one interrupt once the platform holds some, as a cancelled CI job does, through
// the real CLI. The running-in-CI guide's section "What a stopped run prints" must
// quote each of Terraform's lines the run printed (its banner, and every distinct
// "Error:" line, "Error: execution halted" among them) and its exit status; and what
// the guide says they mean must hold: the state holds every score the platform made,
// and the next plan only adds the rest.
func TestAccDocsRunningInCI_stoppedRunPrintsWhatTheGuideSays(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "running-in-ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n### What a stopped run prints\n")
	if !ok {
		t.Fatal(`docs/guides/running-in-ci.md has no section "What a stopped run prints"`)
	}
	section, _, _ = strings.Cut(section, "\n#")
	section = strings.Join(strings.Fields(section), " ")

	const scores = 40
	emu := newTestEmulatorWith(t, "renderings that keep creates waiting", emulator.Options{RenderDelay: 3 * time.Second})
	ctl := emu.control(t, "the scores the platform holds")
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = %d
  score_url = "https://cdn.example/scores/stopped-${count.index}.sib"
}
`, scores))
	t.Cleanup(func() { w.run("destroy", "-auto-approve") })
	cmd := w.command("apply", "-auto-approve")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if !waitFor(time.Minute, func() bool { return ctl.Stats().Scores >= 5 }) {
		t.Fatalf("no score reached the platform within a minute:\n%s", out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatalf("the interrupted apply succeeded: the stop came too late to show anything:\n%s", out.String())
	}
	// The guide is written for Terraform; OpenTofu prints the same lines under its name.
	printed := strings.ReplaceAll(out.String(), "OpenTofu", "Terraform")

	var terraformLines []string
	if _, banner, ok := strings.Cut(printed, "\nInterrupt received."); ok {
		banner, _, _ = strings.Cut(banner, "\n\n")
		terraformLines = append(terraformLines, "Interrupt received.")
		terraformLines = append(terraformLines, strings.Split(strings.TrimSpace(banner), "\n")...)
	} else {
		t.Fatalf("terraform was not interrupted:\n%s", printed)
	}
	halted := 0
	for _, line := range strings.Split(printed, "\n") {
		line = strings.TrimSpace(line)
		if line == "Error: execution halted" {
			halted++
		}
		if strings.HasPrefix(line, "Error: ") && !slices.Contains(terraformLines, line) {
			terraformLines = append(terraformLines, line)
		}
	}
	if halted == 0 {
		t.Errorf("the stopped apply printed no \"Error: execution halted\": the section describes nothing:\n%s", printed)
	}
	for _, line := range terraformLines {
		if !strings.Contains(section, line) {
			t.Errorf("the guide's section does not quote %q, which the stopped apply printed", line)
		}
	}
	if code := cmd.ProcessState.ExitCode(); !strings.Contains(section, fmt.Sprintf("exit status %d", code)) {
		t.Errorf("the stopped apply exited %d, which the guide's section does not say (\"exit status %d\")", code, code)
	}

	made := ctl.Stats().Scores
	state := strings.Fields(w.run("state", "list"))
	t.Logf("one interrupt: %d scores on the platform, %d in the state, %d \"Error: execution halted\" lines", made, len(state), halted)
	if len(state) != made {
		t.Errorf("after the stop the state holds %d scores and the platform %d: the lines are not harmless", len(state), made)
	}
	plan := w.run("plan", "-lock=false")
	if want := fmt.Sprintf("Plan: %d to add, 0 to change, 0 to destroy.", scores-made); !strings.Contains(plan, want) {
		t.Errorf("after the stop the next plan does not say %q:\n%s", want, plan)
	}
}
