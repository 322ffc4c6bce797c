package acctest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadStandIn reads the stand-in's record: its start, its signals in order, and
// its exit status only when it ended by itself.
func TestReadStandIn(t *testing.T) {
	dir := t.TempDir()
	if r := ReadStandIn(filepath.Join(dir, "none")); r.Started || r.Signals != nil || r.Exit != "" {
		t.Errorf("no record read as %+v", r)
	}
	record := filepath.Join(dir, "record")
	if err := os.WriteFile(record, []byte("start apply -auto-approve\nsignal interrupt\nsignal terminated\nexit 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := ReadStandIn(record)
	if !r.Started || !slices.Equal(r.Signals, []string{"interrupt", "terminated"}) || r.Exit != "1" {
		t.Errorf("read %+v", r)
	}
	if err := os.WriteFile(record, []byte("start apply\nsignal interrupt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := ReadStandIn(record); !r.Started || len(r.Signals) != 1 || r.Exit != "" {
		t.Errorf("a killed stand-in read as %+v", r)
	}
}
