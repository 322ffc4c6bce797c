package provider

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// gcPercent reads the collector's target.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestGCTarget(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct{ before, during int }{{100, 50}, {200, 100}, {30, 15}, {18, 18}, {-1, -1}} {
		debug.SetGCPercent(tc.before)
		var g gcTarget
		g.tighten()
		g.tighten() // a second, concurrent large read
		if got := gcPercent(); got != tc.during {
			t.Errorf("GOGC=%d: %d while reading, want %d", tc.before, got, tc.during)
		}
		g.restore()
		if got := gcPercent(); got != tc.during {
			t.Errorf("GOGC=%d: %d after the first of two reads, want %d", tc.before, got, tc.during)
		}
		g.restore()
		if got := gcPercent(); got != tc.before {
			t.Errorf("GOGC=%d: %d after the reads, want it back", tc.before, got)
		}
	}
}

// recordingServer records the collector's target seen by each data source read.
type recordingServer struct {
	protocolServer
	seen map[string]int
}

func (s recordingServer) ReadDataSource(_ context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	s.seen[req.TypeName] = gcPercent()
	return &tfprotov6.ReadDataSourceResponse{}, nil
}

func TestTighterCollectionOnlyForLargeReads(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	rec := recordingServer{seen: map[string]int{}}
	s := tighterCollection{rec}
	for _, name := range []string{"mediaplatform_scores", "mediaplatform_score"} {
		if _, err := s.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: name}); err != nil {
			t.Fatal(err)
		}
	}
	if rec.seen["mediaplatform_scores"] != 50 || rec.seen["mediaplatform_score"] != 100 {
		t.Errorf("targets seen by the reads: %v, want 50 for mediaplatform_scores and 100 for mediaplatform_score", rec.seen)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("after the reads: %d", got)
	}
}
