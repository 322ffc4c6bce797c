package acctest

import (
	"os"
	"testing"
)

// TestCommandsWithoutCollector sets both variables for the commands a test starts, and
// keeps a developer's own setting of either whole.
func TestCommandsWithoutCollector(t *testing.T) {
	cases := []struct {
		name             string
		gogc, memlimit   string
		wantGOGC, wantML string
	}{
		{name: "neither set", wantGOGC: "off", wantML: "1GiB"},
		{name: "GOGC set", gogc: "200", wantGOGC: "200", wantML: ""},
		{name: "GOMEMLIMIT set", memlimit: "4GiB", wantGOGC: "", wantML: "4GiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			t.Setenv("GOMEMLIMIT", tc.memlimit)
			CommandsWithoutCollector()
			if got := os.Getenv("GOGC"); got != tc.wantGOGC {
				t.Errorf("GOGC=%q, want %q", got, tc.wantGOGC)
			}
			if got := os.Getenv("GOMEMLIMIT"); got != tc.wantML {
				t.Errorf("GOMEMLIMIT=%q, want %q", got, tc.wantML)
			}
		})
	}
}
