package provider

// The provider's versions: CHANGELOG.md names them, use-local-build.sh installs a
// build under one, the upgrading guide's table names which of them cannot read which
// state, and a user pins one and rolls back to it through Terraform. A suite of the
// changelog, the script and the guide, so it tests no one file.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// changelogVersions returns the versions CHANGELOG.md's sections name, newest first,
// and each section's text.
func changelogVersions(t *testing.T) (versions []string, sections map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`(?m)^## (\d+\.\d+\.\d+)\b.*$`)
	text := string(raw)
	sections = map[string]string{}
	matches := heading.FindAllStringSubmatchIndex(text, -1)
	for i, m := range matches {
		v := text[m[2]:m[3]]
		end := len(text)
		if i+1 < len(matches) {
			end = matches[i+1][0]
		}
		versions = append(versions, v)
		sections[v] = text[m[1]:end]
	}
	if len(versions) == 0 {
		t.Fatal(`CHANGELOG.md has no section named by a version ("## 1.2.3 (Unreleased)", "## 1.2.2 (May 4, 2026)")`)
	}
	return versions, sections
}

// localBuild runs use-local-build.sh from this checkout into dir with args (the
// version, or nothing), with a stand-in go on PATH whose builds write their command
// line in place of a binary.
func localBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "go"), `#!/usr/bin/env bash
case "$1" in
env) case "$2" in GOOS) echo linux ;; GOARCH) echo amd64 ;; *) exit 2 ;; esac ;;
build)
	prev=
	for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
	printf '%s\n' "go $*" >"$out" ;;
*) exit 2 ;;
esac
`)
	if err := os.Chmod(filepath.Join(bin, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join("..", "..")
	cmd := exec.CommandContext(t.Context(), "bash", append([]string{filepath.Join(repo, "examples", "guides", "testing", "use-local-build.sh"), repo, dir}, args...)...)
	cmd.Env = append(cleanEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("use-local-build.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestLocalBuildInstallsChangelogVersion: use-local-build.sh without a version
// installs the build under the newest version CHANGELOG.md names, for Terraform and
// OpenTofu, built with that version (-X main.version, the User-Agent's); given a
// version, it installs that one beside it, so a configuration may pin either. Before,
// every build was 0.0.1 and knew no version ("dev").
func TestLocalBuildInstallsChangelogVersion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	t.Parallel()
	versions, _ := changelogVersions(t)
	newest, other := versions[0], "0.0.1-test"
	dir := t.TempDir()
	localBuild(t, dir)
	localBuild(t, dir, other)
	for _, v := range []string{newest, other} {
		for _, host := range []string{"registry.terraform.io", "registry.opentofu.org"} {
			binary := filepath.Join(dir, "mirror", host, "mediaplatform", "mediaplatform", v, "linux_amd64", "terraform-provider-mediaplatform_v"+v)
			raw, err := os.ReadFile(binary)
			if err != nil {
				t.Errorf("version %s is not in the mirror for %s: %v", v, host, err)
				continue
			}
			if want := "-X main.version=" + v; !strings.Contains(string(raw), want) {
				t.Errorf("the build of %s for %s was not given its version (%s): %s", v, host, want, raw)
			}
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "mirror", "registry.terraform.io", "mediaplatform", "mediaplatform"))
	if err != nil {
		t.Fatal(err)
	}
	var installed []string
	for _, e := range entries {
		installed = append(installed, e.Name())
	}
	if want := []string{other, newest}; !slices.Equal(installed, want) {
		t.Errorf("the mirror holds versions %v, want %v", installed, want)
	}
}

// upgradingTable returns the rows of the upgrading guide's table of states an earlier
// build cannot read: resource type, schema version, written since, refused by.
func upgradingTable(t *testing.T) [][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "upgrading.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## States an earlier build cannot read")
	if !ok {
		t.Fatal(`docs/guides/upgrading.md has no section "States an earlier build cannot read"`)
	}
	var rows [][]string
	for line := range strings.Lines(section) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "| `") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != 4 {
			t.Fatalf("the upgrading guide's row %q has %d cells, want 4", line, len(cells))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatal("the upgrading guide's table has no rows")
	}
	return rows
}

// TestUpgradeNotesNameChangelogVersions: the upgrading guide's table names each state
// by the version that writes it and the versions that refuse it, and these are
// versions of CHANGELOG.md: the one writing it says so in its section (the type's
// name), and every refusing one is older. Before, the table said "the release that
// added `adopt_unrecorded`", which no lock file or pin can name.
func TestUpgradeNotesNameChangelogVersions(t *testing.T) {
	t.Parallel()
	versions, sections := changelogVersions(t)
	version := regexp.MustCompile(`\d+\.\d+\.\d+`)
	for _, row := range upgradingTable(t) {
		typ, since, refusedBy := strings.Trim(row[0], "`"), version.FindAllString(row[2], -1), version.FindAllString(row[3], -1)
		if len(since) != 1 || len(refusedBy) == 0 {
			t.Errorf("%s: the table's row names %v as writing the state and %v as refusing it, want one version and at least one",
				typ, since, refusedBy)
			continue
		}
		i := slices.Index(versions, since[0])
		if i < 0 {
			t.Errorf("%s: written since %s, which CHANGELOG.md does not name (it names %v)", typ, since[0], versions)
			continue
		}
		if !strings.Contains(sections[since[0]], "`"+typ+"`") {
			t.Errorf("%s: written since %s, whose section of CHANGELOG.md does not name it", typ, since[0])
		}
		for _, v := range refusedBy {
			if j := slices.Index(versions, v); j <= i {
				t.Errorf("%s: refused by %s, which CHANGELOG.md does not name as older than %s (it names %v)", typ, v, since[0], versions)
			}
		}
	}
	// The rollback recipe pins a version of the changelog.
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "upgrading.md"))
	if err != nil {
		t.Fatal(err)
	}
	pins := regexp.MustCompile(`version += "= (\d+\.\d+\.\d+)"`).FindAllStringSubmatch(string(raw), -1)
	if len(pins) == 0 {
		t.Error(`the upgrading guide pins no version (version = "= x.y.z") to roll back to`)
	}
	for _, pin := range pins {
		if !slices.Contains(versions, pin[1]) {
			t.Errorf("the upgrading guide pins %s, which CHANGELOG.md does not name (it names %v)", pin[1], versions)
		}
	}
}
