package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestImportedScoreIsNotAdopted: a score imported in this run is held by this run, so
// adopt_unrecorded does not give it to another resource, though it has the alias,
// address and publisher adoption looks for and was published before the run. Before,
// the resource that met its alias adopted it, and two addresses managed one score.
// (Terraform configures a new client for each walk, so an import and a create of one
// client are shown here, on the resource itself.)
func TestImportedScoreIsNotAdopted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emu := newTestEmulator(t)
	alias := accName()
	s, err := emu.client(t).PublishScore(ctx, client.PublishScoreInput{ScoreURL: accScoreURL(alias), Alias: alias})
	if err != nil {
		t.Fatal(err)
	}
	emu.deleteAtCleanup(t)(s.ID)
	afterTheKilledRun()

	r := &scoreResource{client: emu.client(t)}
	var schema fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &schema)
	imported := &fwresource.ImportStateResponse{State: tfsdk.State{
		Schema: schema.Schema, Raw: tftypes.NewValue(schema.Schema.Type().TerraformType(ctx), nil),
	}}
	r.ImportState(ctx, fwresource.ImportStateRequest{ID: alias}, imported)
	if imported.Diagnostics.HasError() {
		t.Fatalf("the import failed: %v", imported.Diagnostics)
	}
	plan := scoreModel{
		ScoreURL: types.StringValue(accScoreURL(alias)), ScoreID: types.StringValue(alias),
		Transpose: types.BoolValue(false), AdoptUnrecorded: types.BoolValue(true),
	}
	if got, hint := r.unrecordedScore(ctx, plan, "the 409's hint"); got != nil {
		t.Errorf("the score %s imported in this run was adopted by another resource: %s", got.ID, hint)
	} else if !strings.Contains(hint, "which another resource of this run already created, adopted or imported") {
		t.Errorf("the refusal does not say the score is held by this run: %s", hint)
	}
}

// TestRestoredHolder: a score that holds the alias of the state's score is taken as
// restored only when the provider's own user published it before the state's score,
// by more than the platform clock's tolerance: one a second older may be a newer
// publish on a clock that stepped back a second.
func TestRestoredHolder(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	state := scoreModel{ScoreID: types.StringValue("a"), CreatedAt: types.StringValue(created.Format(time.RFC3339Nano))}
	for _, c := range []struct {
		older     time.Duration
		publisher string
		want      bool
	}{
		{older: time.Hour, publisher: "alice", want: true},
		{older: client.ClockTolerance + time.Millisecond, publisher: "alice", want: true},
		{older: time.Second, publisher: "alice", want: false},
		{older: -time.Second, publisher: "alice", want: false},
		{older: time.Hour, publisher: "viewer", want: false},
		{older: time.Hour, publisher: "", want: false},
	} {
		holder := &client.Score{Alias: "a", Publisher: c.publisher, CreatedAt: created.Add(-c.older)}
		if got := restoredHolder(state, holder, "alice"); got != c.want {
			t.Errorf("a holder %s older, published by %q: restoredHolder = %t, want %t", c.older, c.publisher, got, c.want)
		}
	}
}
