package provider

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/vmihailenco/msgpack/v5"
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
// first lowers the target, the last restores it. Since encodedResults the scores are
// held encoded and the framework's copies are of the placeholder; the halved target
// now bounds the encoding's buffers, and was not measured without it.
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

// encodedResults is in front of the framework's protocol server, for the data
// sources of largeReadDataSources: their Read may hand over one attribute of its
// result already in the protocol's MessagePack encoding (handOverEncoded), leaving an
// empty placeholder in the framework's state, and encodedResults writes that encoding
// into the response in the placeholder's place. The framework holds a result as a
// Terraform value of about 2.5 KB a score and, after Read, makes two more of it (a
// copy for its semantic-equality pass, then the transform that turns null blocks
// into empty ones before it encodes the result); 20,000 scores peaked at 183.6 MiB
// RSS. Encoded score by score, the list is about 0.3 KB a score and no Terraform value
// of the whole list is ever built (BENCHMARKS.md, 2026-11-29).
//
// Neither framework pass has anything to do on such an attribute: it is computed
// only, so the configuration it is compared with is null, and it holds nested
// attributes, not blocks (TestEncodedResultIsTheFrameworks checks the whole result
// against the framework's own).
type encodedResults struct {
	protocolServer
}

// encodedAttributeKey is the context key of a read's *encodedAttribute.
type encodedAttributeKey struct{}

// encodedAttribute is a list attribute of a result in the MessagePack encoding: its
// elements' encodings one after the other.
type encodedAttribute struct {
	name     string // the root attribute; "" until Read hands one over
	count    int
	elements []byte
}

// handOverEncoded gives the list attribute name of count elements, encoded one after
// the other in elements, to the encodedResults serving the call, and reports whether
// one is; without one the caller puts the list into its state itself.
func handOverEncoded(ctx context.Context, name string, count int, elements []byte) bool {
	a, ok := ctx.Value(encodedAttributeKey{}).(*encodedAttribute)
	if ok {
		*a = encodedAttribute{name: name, count: count, elements: elements}
	}
	return ok
}

// encodedList is the MessagePack encoding of a list of count elements, encoded one
// after the other in elements.
func encodedList(count int, elements []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(5 + len(elements))
	if err := msgpack.NewEncoder(&b).EncodeArrayLen(count); err != nil {
		return nil, err
	}
	b.Write(elements)
	return b.Bytes(), nil
}

// ReadDataSource reads the data source and writes in the attribute its Read encoded.
func (s encodedResults) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	if req == nil || !largeReadDataSources[req.TypeName] {
		return s.protocolServer.ReadDataSource(ctx, req)
	}
	encoded := &encodedAttribute{}
	resp, err := s.protocolServer.ReadDataSource(context.WithValue(ctx, encodedAttributeKey{}, encoded), req)
	if err != nil || resp == nil || resp.State == nil || encoded.name == "" {
		return resp, err
	}
	state, err := encoded.replaceIn(resp.State.MsgPack)
	if err != nil {
		resp.State = nil
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  "Provider bug: the result has no encoding",
			Detail:   fmt.Sprintf("The %s result's attribute %s could not be written into it. Please report this to the provider's developers: %v", req.TypeName, encoded.name, err),
		})
		return resp, nil
	}
	resp.State.MsgPack = state
	return resp, nil
}

// replaceIn returns the MessagePack encoding of an object (a map of attribute names)
// with a's attribute replaced by a's list; every other attribute keeps its bytes.
func (a *encodedAttribute) replaceIn(object []byte) ([]byte, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(object))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(object) + 5 + len(a.elements))
	enc := msgpack.NewEncoder(&out) // writes straight into out, a ByteWriter
	if err := enc.EncodeMapLen(n); err != nil {
		return nil, err
	}
	found := false
	for range n {
		key, err := dec.DecodeRaw()
		if err != nil {
			return nil, err
		}
		value, err := dec.DecodeRaw()
		if err != nil {
			return nil, err
		}
		var name string
		if err := msgpack.Unmarshal(key, &name); err != nil {
			return nil, err
		}
		out.Write(key)
		if name != a.name {
			out.Write(value)
			continue
		}
		found = true
		if err := enc.EncodeArrayLen(a.count); err != nil {
			return nil, err
		}
		out.Write(a.elements)
	}
	if !found {
		return nil, fmt.Errorf("the result has no attribute %q", a.name)
	}
	return out.Bytes(), nil
}
