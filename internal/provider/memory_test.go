package provider

import (
	"bytes"
	"context"
	"runtime/debug"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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

// TestEncodedResultIsTheFrameworks: mediaplatform_scores read through the provider's
// protocol server, which writes the scores encoded one by one into the result
// (encodedResults), sends the same bytes as the framework's server alone, which
// encodes the Terraform value of the whole result; for scores of every shape the
// fixture makes (transposed, with an alias, rendered, failed) and for none.
func TestEncodedResultIsTheFrameworks(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	scores, _, _ := dsFilterFixture(t, emu)
	cfg, diags := decodeConfig(t, emu.providerConfig()+`
data "mediaplatform_scores" "all" {}
data "mediaplatform_scores" "none" {
  offset = 1000
}
`)
	if hasError(diags) || len(cfg.blocks) != 2 {
		t.Fatalf("the configuration: %d blocks, %s", len(cfg.blocks), planDiagnosticsText(diags))
	}
	var tp trackedProviders
	t.Cleanup(func() { tp.closeClients(t) })
	wrapped, err := tp.factories()["mediaplatform"]()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := New("test")().(*mediaplatformProvider)
	if !ok {
		t.Fatal("New does not return a *mediaplatformProvider")
	}
	tp.providers = append(tp.providers, p) // its client closed at the end too
	framework := providerserver.NewProtocol6(p)()
	read := func(srv tfprotov6.ProviderServer, b protocolBlock) []byte {
		t.Helper()
		ctx := t.Context()
		configured, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: protocolTerraformVersion, Config: cfg.provider})
		if err != nil || len(configured.Diagnostics) > 0 {
			t.Fatalf("configure: %v %s", err, diagnosticsText(configured.Diagnostics))
		}
		resp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: b.typeName, Config: b.config})
		if err != nil || len(resp.Diagnostics) > 0 || resp.State == nil {
			t.Fatalf("read %s: %v %s", b.address(), err, diagnosticsText(resp.Diagnostics))
		}
		return resp.State.MsgPack
	}
	for _, b := range cfg.blocks {
		got, want := read(wrapped, b), read(framework, b)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the provider's result differs from the framework's:\n got %x\nwant %x", b.address(), got, want)
		}
		state, err := (&tfprotov6.DynamicValue{MsgPack: got}).Unmarshal(b.schema.ValueType())
		if err != nil {
			t.Fatalf("%s: %v", b.address(), err)
		}
		var attrs map[string]tftypes.Value
		var list []tftypes.Value
		if err := state.As(&attrs); err != nil {
			t.Fatal(err)
		}
		if err := attrs["scores"].As(&list); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"all": len(scores), "none": 0}[b.name]; len(list) != want {
			t.Errorf("%s: %d scores, want %d", b.address(), len(list), want)
		}
	}
}

func TestEncodedAttributeReplaceIn(t *testing.T) {
	object := func(scores tftypes.Value) []byte {
		typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"offset": tftypes.Number, "scores": scores.Type(), "status": tftypes.String}}
		v := tftypes.NewValue(typ, map[string]tftypes.Value{
			"offset": tftypes.NewValue(tftypes.Number, 3), "scores": scores, "status": tftypes.NewValue(tftypes.String, "idle"),
		})
		b, err := tfprotov6.NewDynamicValue(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return b.MsgPack
	}
	listType := tftypes.List{ElementType: tftypes.String}
	elems := []tftypes.Value{tftypes.NewValue(tftypes.String, "a"), tftypes.NewValue(tftypes.String, "b")}
	var encoded []byte
	for _, e := range elems {
		b, err := tfprotov6.NewDynamicValue(tftypes.String, e)
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, b.MsgPack...)
	}
	a := &encodedAttribute{name: "scores", count: len(elems), elements: encoded}
	got, err := a.replaceIn(object(tftypes.NewValue(listType, []tftypes.Value{})))
	if err != nil {
		t.Fatal(err)
	}
	if want := object(tftypes.NewValue(listType, elems)); !bytes.Equal(got, want) {
		t.Errorf("replaced: %x, want %x", got, want)
	}
	a.name = "renderings"
	if _, err := a.replaceIn(object(tftypes.NewValue(listType, []tftypes.Value{}))); err == nil {
		t.Error("an object without the attribute: no error")
	}
}
