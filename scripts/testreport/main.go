// Command testreport reads `go test -json` on standard input and writes a short
// report: each package's result as it ends, then the number of tests (subtests
// included) that passed, failed and were skipped, every skipped test with its reason,
// the whole output of every failed test, and the slowest top-level tests (where a
// suite's time goes). It exits 1 when a test or a package failed. scripts/gotest.sh runs it.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// event is one line of `go test -json` (test2json).
type event struct {
	Action  string  `json:"Action"`
	Package string  `json:"Package"`
	Test    string  `json:"Test"`
	Elapsed float64 `json:"Elapsed"`
	Output  string  `json:"Output"`
}

// slowestShown is how many of the slowest top-level tests the report lists.
const slowestShown = 15

// timing is how long one top-level test took (its package and name, as key).
type timing struct {
	key     string
	seconds float64
}

// logLine is a line a test logged (t.Log, t.Skip, t.Error): "    file.go:12: text".
var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: `)

func main() {
	os.Exit(report(os.Stdin, os.Stdout))
}

func report(in io.Reader, out io.Writer) int {
	output := map[string][]string{} // by package and test
	counts := map[string]int{}
	var skipped, failed []string
	var timed []timing
	failedPackage := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event (e.g. a build error printed by go test): pass it on.
			fmt.Fprintln(out, sc.Text())
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			output[key] = append(output[key], e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" {
				fmt.Fprintf(out, "%-4s %s\t%.1fs\n", map[string]string{"pass": "ok", "fail": "FAIL", "skip": "?"}[e.Action], e.Package, e.Elapsed)
				if e.Action == "fail" {
					failedPackage = true
					if len(output[key]) > 0 {
						fmt.Fprint(out, strings.Join(output[key], ""))
					}
				}
				continue
			}
			counts[e.Action]++
			if !strings.Contains(e.Test, "/") {
				timed = append(timed, timing{key, e.Elapsed})
			}
			switch e.Action {
			case "skip":
				skipped = append(skipped, key)
			case "fail":
				failed = append(failed, key)
			}
		}
	}
	fmt.Fprintf(out, "==> tests: %d passed, %d failed, %d skipped\n", counts["pass"], counts["fail"], counts["skip"])
	if len(skipped) > 0 {
		fmt.Fprintln(out, "==> skipped, and why:")
		slices.Sort(skipped)
		for _, key := range skipped {
			fmt.Fprintf(out, "  %s\n", key)
			for _, line := range output[key] {
				if logLine.MatchString(line) {
					fmt.Fprintf(out, "      %s", logLine.ReplaceAllString(line, ""))
				}
			}
		}
	}
	if len(timed) > 0 {
		slices.SortStableFunc(timed, func(a, b timing) int { return cmp.Compare(b.seconds, a.seconds) })
		fmt.Fprintln(out, "==> slowest tests:")
		for _, t := range timed[:min(len(timed), slowestShown)] {
			fmt.Fprintf(out, "  %6.1fs %s\n", t.seconds, t.key)
		}
	}
	for _, key := range failed {
		fmt.Fprintf(out, "==> FAILED %s:\n%s", key, strings.Join(output[key], ""))
	}
	if len(failed) > 0 || failedPackage {
		return 1
	}
	return 0
}
