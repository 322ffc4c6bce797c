package provider

// The provider's versions: CHANGELOG.md names them, use-local-build.sh installs a
// build under one, the upgrading guide's table names which of them cannot read which
// state, and a user pins one and rolls back to it through Terraform. A suite of the
// changelog, the script and the guide, so it tests no one file.

import (
	"encoding/json"
	"fmt"
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
	skipWithout(t, "bash")
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

// installVersion runs use-local-build.sh for the sources at clone into dir (version
// given, or the default when ""), with the real go, and returns what it printed.
func installVersion(t *testing.T, clone, dir, version string) string {
	t.Helper()
	args := []string{filepath.Join("..", "..", "examples", "guides", "testing", "use-local-build.sh"), clone, dir}
	if version != "" {
		args = append(args, version)
	}
	cmd := exec.CommandContext(t.Context(), "bash", args...)
	cmd.Env = append(cleanEnv(), "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("use-local-build.sh %s: %v\n%s", strings.Join(args[1:], " "), err, out)
	}
	return string(out)
}

// copySources copies what use-local-build.sh builds from (and the changelog it reads
// the version from) to a new folder of the test's, and returns it.
func copySources(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	clone := t.TempDir()
	args := []string{"-R"}
	for _, f := range []string{"go.mod", "go.sum", "main.go", "internal", "cmd", "CHANGELOG.md"} {
		args = append(args, filepath.Join(repo, f))
	}
	if out, err := exec.CommandContext(t.Context(), "cp", append(args, clone)...).CombinedOutput(); err != nil {
		t.Fatalf("copying the sources: %v\n%s", err, out)
	}
	return clone
}

// lockedVersion returns the version of the provider .terraform.lock.hcl in dir names.
func lockedVersion(t *testing.T, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, ".terraform.lock.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*version\s*=\s*"([^"]+)"`).FindSubmatch(raw)
	if m == nil {
		t.Fatalf("the lock file names no version:\n%s", raw)
	}
	return string(m[1])
}

// scoreSchemaVersion returns the schema version of the score in the workspace's
// local state.
func scoreSchemaVersion(t *testing.T, dir string) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				SchemaVersion int `json:"schema_version"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	for _, r := range state.Resources {
		if r.Type == "mediaplatform_score" && len(r.Instances) == 1 {
			return r.Instances[0].SchemaVersion
		}
	}
	t.Fatalf("the state holds no score:\n%s", raw)
	return -1
}

// TestAccUpgrade_pinAndRollBack practises the upgrading guide's rollback through the
// real CLI with the two newest versions of CHANGELOG.md, both installed by
// use-local-build.sh into one folder: the earlier from a copy of the sources whose
// mediaplatform_score is at the schema version that release wrote (earlierStates), so
// that the two differ as the releases do, the newer by the script's default. With
// `version = "= <earlier>"` it applies a score; the state is pulled; pinned to the
// newer version, `init -upgrade` installs it, the plan shows no change and the apply
// writes the newer schema version; pinned back, the earlier build refuses that state,
// as the guide's table says; the state pushed back from the pull plans no change. Each
// step's lock file names the pinned version, and each build tells the platform its
// version (User-Agent). The builds take most of its time; go's cache keeps a rerun
// short.
func TestAccUpgrade_pinAndRollBack(t *testing.T) {
	terraformPath := cliForTests(t)
	skipWithout(t, "bash", "cp", "go")
	t.Parallel()
	versions, _ := changelogVersions(t)
	if len(versions) < 2 {
		t.Fatalf("CHANGELOG.md names %v, want at least two versions to go between", versions)
	}
	newer, earlier := versions[0], versions[1]

	earlierSources, newerSources := copySources(t), copySources(t)
	schema := filepath.Join(earlierSources, "internal", "provider", "resource_score.go")
	raw, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	current := fmt.Sprintf("\t\tVersion: %d,\n", resourceAttributes["mediaplatform_score"].version)
	if strings.Count(string(raw), current) != 1 {
		t.Fatalf("resource_score.go does not declare %q once", current)
	}
	writeFile(t, schema, strings.Replace(string(raw), current,
		fmt.Sprintf("\t\tVersion: %d,\n", earlierStates["mediaplatform_score"].version), 1))
	local := t.TempDir()
	installVersion(t, earlierSources, local, earlier)
	if out := installVersion(t, newerSources, local, ""); !strings.Contains(out, "built "+newer+" ") {
		t.Errorf("use-local-build.sh without a version did not install %s, the newest of CHANGELOG.md:\n%s", newer, out)
	}

	emu, proxy := newProxiedTestEmulator(t, "the provider's User-Agent")
	w := &workspace{t: t, terraform: terraformPath, dir: t.TempDir(), cliConfig: filepath.Join(local, "terraform.rc"), emu: emu}
	resources := fmt.Sprintf("resource \"mediaplatform_score\" \"s\" {\n  score_url = %q\n}\n", accScoreURL(accName()))
	pin := func(version string) {
		writeFile(t, filepath.Join(w.dir, "main.tf"), fmt.Sprintf(`
terraform {
  required_providers {
    mediaplatform = {
      source  = "mediaplatform/mediaplatform"
      version = "= %s"
    }
  }
}
`, version)+emu.providerConfig()+resources)
	}
	toldVersion := func(version string) {
		t.Helper()
		want := "terraform-provider-mediaplatform/" + version
		for _, r := range proxy.Requests() {
			if r.Header.Get("User-Agent") == want {
				return
			}
		}
		t.Errorf("no request said User-Agent %q", want)
	}
	noChanges := func(step string) {
		t.Helper()
		if out, err := w.command("plan", "-detailed-exitcode").CombinedOutput(); err != nil || !strings.Contains(string(out), "No changes.") {
			t.Errorf("%s: terraform plan: %v, want no changes:\n%s", step, err, out)
		}
	}

	pin(earlier)
	w.run("init")
	if v := lockedVersion(t, w.dir); v != earlier {
		t.Errorf("pinned to %s, the lock file names %s", earlier, v)
	}
	w.run("apply", "-auto-approve")
	if v := scoreSchemaVersion(t, w.dir); v != earlierStates["mediaplatform_score"].version {
		t.Errorf("%s wrote the score at schema version %d, want %d", earlier, v, earlierStates["mediaplatform_score"].version)
	}
	toldVersion(earlier)
	pulled, err := w.command("state", "pull").Output()
	if err != nil {
		t.Fatalf("terraform state pull: %v", err)
	}
	writeFile(t, filepath.Join(w.dir, "before-upgrade.tfstate"), string(pulled))

	pin(newer)
	w.run("init", "-upgrade")
	if v := lockedVersion(t, w.dir); v != newer {
		t.Errorf("pinned to %s, the lock file names %s after init -upgrade", newer, v)
	}
	noChanges("the upgrade to " + newer)
	w.run("apply", "-auto-approve")
	if v := scoreSchemaVersion(t, w.dir); int64(v) != resourceAttributes["mediaplatform_score"].version {
		t.Errorf("%s left the score at schema version %d, want %d", newer, v, resourceAttributes["mediaplatform_score"].version)
	}
	toldVersion(newer)

	pin(earlier)
	w.run("init", "-upgrade")
	if v := lockedVersion(t, w.dir); v != earlier {
		t.Errorf("pinned back to %s, the lock file names %s after init -upgrade", earlier, v)
	}
	out, err := w.command("plan").CombinedOutput()
	if want := errorPattern("Resource instance managed by newer provider version"); err == nil || !want.Match(out) {
		t.Errorf("%s planned the state %s wrote (%v), want %s:\n%s", earlier, newer, err, want, out)
	}
	w.run("state", "push", "-force", "before-upgrade.tfstate")
	noChanges("the rollback to " + earlier)
	if v := scoreSchemaVersion(t, w.dir); v != earlierStates["mediaplatform_score"].version {
		t.Errorf("after the push the score is at schema version %d, want %d", v, earlierStates["mediaplatform_score"].version)
	}
}
