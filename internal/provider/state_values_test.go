package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestScoreModelFromState: the refresh's decoding of a score's state gives what the
// framework's reflection gives, for states with and without the optional values.
func TestScoreModelFromState(t *testing.T) {
	ctx := context.Background()
	var sr resource.SchemaResponse
	NewScoreResource().Schema(ctx, resource.SchemaRequest{}, &sr)
	timeoutsType, ok := sr.Schema.Blocks["timeouts"].Type().(attr.TypeWithAttributeTypes)
	if !ok {
		t.Fatalf("the timeouts block has type %T", sr.Schema.Blocks["timeouts"].Type())
	}
	full := scoreModel{
		ID: types.StringValue("6f1c2d9e-0000-4000-8000-000000000001"), ScoreURL: scoreURLOf("https://cdn.example/a.sib"),
		ScoreID: types.StringValue("alice.sonata"), Transpose: types.BoolValue(true), PurgeOnDestroy: types.BoolValue(true),
		WaitForRendering: types.BoolValue(false), Status: types.StringValue("idle"), CreatedAt: types.StringValue("2026-11-25T04:05:06Z"),
		UpdatedAt: types.StringValue("2026-11-25T04:05:07Z"), PageCount: types.Int64Value(7),
		Timeouts: timeouts.Value{Object: types.ObjectValueMust(timeoutsType.AttributeTypes(), map[string]attr.Value{
			"create": types.StringValue("30m"), "delete": types.StringNull()})},
	}
	minimal := scoreModel{
		ID: types.StringValue("6f1c2d9e-0000-4000-8000-000000000002"), ScoreURL: scoreURLOf("https://cdn.example/b.sib"),
		ScoreID: types.StringNull(), Transpose: types.BoolValue(false), PurgeOnDestroy: types.BoolNull(), WaitForRendering: types.BoolValue(true),
		Status: types.StringValue("pending"), CreatedAt: types.StringNull(), UpdatedAt: types.StringNull(), PageCount: types.Int64Null(),
		Timeouts: timeouts.Value{Object: types.ObjectNull(timeoutsType.AttributeTypes())},
	}
	for name, m := range map[string]scoreModel{"every value": full, "the optional values null": minimal} {
		t.Run(name, func(t *testing.T) {
			state := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
			if diags := state.Set(ctx, &m); diags.HasError() {
				t.Fatal(diags)
			}
			var want scoreModel
			if diags := state.Get(ctx, &want); diags.HasError() {
				t.Fatal(diags)
			}
			got, err := scoreModelFromState(ctx, state)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded:\n%+v\nby reflection:\n%+v", got, want)
			}
		})
	}
	t.Run("another schema is an error", func(t *testing.T) {
		var other resource.SchemaResponse
		NewScoreViewResource().Schema(ctx, resource.SchemaRequest{}, &other)
		state := tfsdk.State{Schema: other.Schema, Raw: tftypes.NewValue(other.Schema.Type().TerraformType(ctx), nil)}
		if _, err := scoreModelFromState(ctx, state); err == nil {
			t.Error("a score view's state decoded as a score's")
		}
	})
	if len(scoreModelAttributes) != len(sr.Schema.Attributes)+len(sr.Schema.Blocks) {
		t.Errorf("scoreModelAttributes has %d names, the schema %d attributes and blocks", len(scoreModelAttributes), len(sr.Schema.Attributes)+len(sr.Schema.Blocks))
	}
}

func TestIdentityHolds(t *testing.T) {
	ctx := context.Background()
	var ir resource.IdentitySchemaResponse
	withIdentity, ok := NewScoreResource().(resource.ResourceWithIdentity)
	if !ok {
		t.Fatal("the score resource has no identity")
	}
	withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &ir)
	typ := ir.IdentitySchema.Type().TerraformType(ctx)
	identity := func(v tftypes.Value) *tfsdk.ResourceIdentity {
		return &tfsdk.ResourceIdentity{Schema: ir.IdentitySchema, Raw: v}
	}
	withID := func(id any) *tfsdk.ResourceIdentity {
		return identity(tftypes.NewValue(typ, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, id)}))
	}
	for name, tc := range map[string]struct {
		identity *tfsdk.ResourceIdentity
		want     bool
	}{
		"the same id":     {withID("a"), true},
		"another id":      {withID("b"), false},
		"a null id":       {withID(nil), false},
		"a null identity": {identity(tftypes.NewValue(typ, nil)), false},
		"no identity":     {nil, false},
		"an unknown id":   {withID(tftypes.UnknownValue), false},
	} {
		if got := identityHolds(tc.identity, "a"); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}
