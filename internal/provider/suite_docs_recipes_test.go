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
	"strings"
	"syscall"
	"testing"
	"time"
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
	for _, tool := range []string{"bash", "curl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
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
