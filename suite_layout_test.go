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
	"internal/faultproxy", "internal/expression", "internal/cimodels", "internal/acctest", "internal/fuzzlimit", "internal/contracttest", "internal/testca", "internal/earlysignals", "internal/stopsignals",
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

// clientBands are the sub-sections of CONTRIBUTING.md's client map, in order, each with
// the rule its files' names follow (nil: none; the ground is named by its table).
var clientBands = []struct {
	heading string
	names   func(file string) bool
}{
	{"### The pipeline", func(f string) bool { return strings.HasPrefix(f, "request") }},
	{"### The credentials", func(f string) bool {
		return f == "session" || f == "exit" || strings.HasPrefix(f, "token_")
	}},
	{"### The API areas", nil},
	{"### The package's ground", nil},
}

// clientBandOf is the band whose naming rule file's name follows, or "" (the API areas
// and the ground: the name says neither of the others).
func clientBandOf(file string) string {
	for _, b := range clientBands {
		if b.names != nil && b.names(file) {
			return b.heading
		}
	}
	return ""
}

// TestContributingMapsEveryClientFile checks CONTRIBUTING.md's client map: each file of
// internal/client in exactly one band's table, no row for a file that is gone, and each
// file in the band its name says (the pipeline's request*.go, the credentials'
// session.go, token_*.go and exit.go; an API area's or the ground's name says neither).
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
	band := map[string]string{} // file → the heading of the table that lists it
	heading := ""
	for line := range strings.SplitSeq(section, "\n") {
		if strings.HasPrefix(line, "### ") {
			heading = ""
			for _, b := range clientBands {
				if strings.HasPrefix(line, b.heading) {
					heading = b.heading
				}
			}
			if heading == "" {
				t.Errorf("CONTRIBUTING.md's client map has a band %q that is none of the known ones", line)
			}
			continue
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range regexp.MustCompile("`([a-z_0-9]+)\\.go`").FindAllStringSubmatch(first, -1) {
			switch {
			case heading == "":
				t.Errorf("CONTRIBUTING.md's client map lists %s.go outside the bands' tables", m[1])
			case band[m[1]] != "":
				t.Errorf("CONTRIBUTING.md's client map lists %s.go twice (%s, %s)", m[1], band[m[1]], heading)
			}
			band[m[1]] = heading
		}
	}
	files := goFiles(t, "internal/client", false)
	for _, f := range files {
		listed := band[f]
		switch named := clientBandOf(f); {
		case listed == "":
			t.Errorf("internal/client/%s.go is not in CONTRIBUTING.md's client map", f)
		case named != "" && named != listed:
			t.Errorf("internal/client/%s.go is listed under %q, but its name puts it under %q", f, listed, named)
		case named == "" && listed != clientBands[2].heading && listed != clientBands[3].heading:
			t.Errorf("internal/client/%s.go is listed under %q, whose files' names say so; rename it or list it elsewhere", f, listed)
		}
	}
	for f := range band {
		if !slices.Contains(files, f) {
			t.Errorf("CONTRIBUTING.md's client map lists %s.go, which internal/client does not have", f)
		}
	}
}
