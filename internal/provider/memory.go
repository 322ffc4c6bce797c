package provider

import (
	"context"
	"runtime/debug"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// largeReadDataSources are the data sources whose result can hold tens of thousands
// of objects: mediaplatform_scores over a whole platform.
var largeReadDataSources = map[string]bool{"mediaplatform_scores": true}

// tighterCollection is in front of the framework's protocol server: while a data
// source of largeReadDataSources is read, the garbage collector lets the heap grow to
// half as far past the live data as it otherwise would (GOGC halved; untouched
// when it is off or below 20). The framework holds such a result as two
// copies of one Terraform value, then a third while it encodes it; with the default
// target the heap grows to twice that before a collection, so the process's peak is
// four copies of the list rather than three. A process reading 20,000 scores through
// the protocol server peaked at 197 MB instead of 237, for about the same time
// (BENCHMARKS.md, 2026-11-25). Concurrent reads share one change: the
// first lowers the target, the last restores it.
type tighterCollection struct {
	protocolServer
}

// ReadDataSource reads the data source, with the tighter target for a large one.
func (s tighterCollection) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	if req != nil && largeReadDataSources[req.TypeName] {
		collection.tighten()
		defer collection.restore()
	}
	return s.protocolServer.ReadDataSource(ctx, req)
}

// collection is the process's collector target while large reads run.
var collection gcTarget

// gcTarget lowers the collector's target for as long as any caller holds it.
type gcTarget struct {
	mu      sync.Mutex
	holders int
	saved   int // the target before the first holder
}

func (g *gcTarget) tighten() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holders++
	if g.holders > 1 {
		return
	}
	g.saved = debug.SetGCPercent(100)
	target := g.saved / 2
	if target < 10 { // GOGC=off or already low: the user's choice
		target = g.saved
	}
	debug.SetGCPercent(target)
}

func (g *gcTarget) restore() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holders--
	if g.holders == 0 {
		debug.SetGCPercent(g.saved)
	}
}
