package main

// The repository's layout, as CONTRIBUTING.md states it: a test file is named after
// the source file it tests, and the client map lists every file of the client. A
// suite of the whole tree, so it tests no one file.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// testFilePackages are the folders whose test files follow the naming rule.
var testFilePackages = []string{
	"internal/client", "internal/provider", "internal/emulator", "internal/emulatortest",
	"internal/faultproxy", "internal/expression", "internal/cimodels", "internal/acctest", "internal/fuzzlimit", "internal/contracttest", "internal/testca", "internal/earlysignals",
	"cmd/mediaplatform-emulator",
}

// issueNumber matches a name that refers to an issue rather than to a file.
var issueNumber = regexp.MustCompile(`(^|_)issue|[a-z_]\d{2,}(_|$)`)

// testFileProblem says why the test file name (without "_test.go") breaks the rule in
// a folder with the given source files (without ".go"), or "" when it follows it:
// the name of a source file, that name and a suffix after "_" (one aspect of it), or
// "suite_…" / "harness" / "harness_…" for a suite of no one file and the shared test helpers. In
// cmd/mediaplatform-emulator, "conformance_<area>" names the area of WIRE.md, which is
// the emulator's file of that area.
func testFileProblem(name string, sources []string, areas []string) string {
	if issueNumber.MatchString(name) {
		return "names an issue, not the file it tests"
	}
	if name == "harness" || strings.HasPrefix(name, "suite_") || strings.HasPrefix(name, "harness_") {
		return ""
	}
	named := func(files []string, n string) bool {
		for _, s := range files {
			if n == s || strings.HasPrefix(n, s+"_") {
				return true
			}
		}
		return false
	}
	if named(sources, name) {
		return ""
	}
	if area, ok := strings.CutPrefix(name, "conformance_"); ok && named(areas, area) {
		return ""
	}
	return "names no source file of its folder (a suite of no one file starts with suite_, shared helpers with harness_)"
}

// goFiles returns the names (without ".go") of dir's source files, or of its test
// files (without "_test.go").
func goFiles(t *testing.T, dir string, tests bool) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") != tests {
			continue
		}
		names = append(names, strings.TrimSuffix(strings.TrimSuffix(n, ".go"), "_test"))
	}
	return names
}

func TestTestFilesAreNamedAfterTheirFiles(t *testing.T) {
	areas := goFiles(t, "internal/emulator", false)
	for _, dir := range testFilePackages {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		sources := goFiles(t, dir, false)
		for _, name := range goFiles(t, dir, true) {
			if problem := testFileProblem(name, sources, areas); problem != "" {
				t.Errorf("%s: %s", filepath.Join(dir, name+"_test.go"), problem)
			}
		}
	}
}

func TestTestFileProblem(t *testing.T) {
	sources := []string{"score_publish", "scores", "request"}
	areas := []string{"admin", "scores"}
	for name, ok := range map[string]bool{
		"score_publish":         true,
		"score_publish_lagging": true,
		"scores_state":          true,
		"request":               true,
		"suite_signals":         true,
		"harness_workspace":     true,
		"harness":               true,
		"conformance_scores":    true,
		"conformance_admin":     true,
		"readings36":            false,
		"field_issue36":         false,
		"score_publish41":       false,
		"publish_clock":         false,
		"conformance_registry":  false,
		"requests":              false,
	} {
		if got := testFileProblem(name, sources, areas) == ""; got != ok {
			t.Errorf("testFileProblem(%q) accepts it: %v, want %v", name, got, ok)
		}
	}
}

// TestContributingMapsEveryClientFile checks the client map of CONTRIBUTING.md ("The
// client's files") against the folder: every file listed exists, every file is listed.
func TestContributingMapsEveryClientFile(t *testing.T) {
	b, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## The client's files")
	if !ok {
		t.Fatal(`CONTRIBUTING.md has no section "## The client's files"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	mapped := map[string]bool{}
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range regexp.MustCompile("`([a-z_0-9]+\\.go)`").FindAllStringSubmatch(first, -1) {
			mapped[m[1]] = true
		}
	}
	files := goFiles(t, "internal/client", false)
	for _, f := range files {
		if !mapped[f+".go"] {
			t.Errorf("internal/client/%s.go is not in CONTRIBUTING.md's client map", f)
		}
	}
	for f := range mapped {
		if !slices.Contains(files, strings.TrimSuffix(f, ".go")) {
			t.Errorf("CONTRIBUTING.md's client map lists %s, which internal/client does not have", f)
		}
	}
}
