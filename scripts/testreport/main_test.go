package main

import (
	"strings"
	"testing"
)

func TestReportListsTheSlowestTopLevelTests(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"pass","Package":"p","Test":"TestFast","Elapsed":0.5}`,
		`{"Action":"pass","Package":"p","Test":"TestSlow","Elapsed":42}`,
		`{"Action":"pass","Package":"p","Test":"TestSlow/sub","Elapsed":41}`,
		`{"Action":"skip","Package":"p","Test":"TestSkipped","Elapsed":0}`,
		`{"Action":"pass","Package":"p","Elapsed":43}`,
	}, "\n")
	var out strings.Builder
	if code := report(strings.NewReader(in), &out); code != 0 {
		t.Fatalf("report exited %d:\n%s", code, out.String())
	}
	got := out.String()
	if !strings.Contains(got, "==> tests: 3 passed, 0 failed, 1 skipped") {
		t.Errorf("counts missing:\n%s", got)
	}
	_, slowest, ok := strings.Cut(got, "==> slowest tests:\n")
	if !ok || !strings.HasPrefix(slowest, "    42.0s p TestSlow\n     0.5s p TestFast\n") || strings.Contains(slowest, "sub") {
		t.Errorf("want the top-level tests, slowest first, subtests left out:\n%s", got)
	}
}
