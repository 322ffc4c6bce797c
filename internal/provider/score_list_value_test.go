package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// scoresListType is the type of mediaplatform_scores' scores attribute.
func scoresListType(t *testing.T) scoreListType {
	t.Helper()
	var resp datasource.SchemaResponse
	NewScoresDataSource().Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	typ, ok := resp.Schema.Attributes["scores"].GetType().(scoreListType)
	if _, object := typ.ElemType.(basetypes.ObjectType); !ok || !object {
		t.Fatalf("the scores attribute has type %T", resp.Schema.Attributes["scores"].GetType())
	}
	return typ
}

// TestScoreTerraformValue: the value built field by field is the value the framework's
// reflection builds from the same model, for every shape a score can have.
func TestScoreTerraformValue(t *testing.T) {
	ctx := context.Background()
	listType := scoresListType(t)
	objectType, _ := listType.ElemType.(basetypes.ObjectType)
	scoreType, _ := objectType.TerraformType(ctx).(tftypes.Object)
	created := time.Date(2026, 11, 25, 4, 5, 6, 789000000, time.UTC)
	for name, score := range map[string]*client.Score{
		"everything": {ID: "6f1c2d9e-0000-4000-8000-000000000001", Alias: "alice.sonata", ScoreURL: "https://cdn.example/a.sib",
			Transpose: true, Status: "idle", CreatedAt: created, UpdatedAt: created.Add(time.Second), Publisher: "alice",
			Renderings: []client.Rendering{{Format: "pdf", Pages: 3}, {Format: "png", Pages: 4}}},
		"no alias, no publisher, no rendering": {ID: "6f1c2d9e-0000-4000-8000-000000000002", ScoreURL: "https://cdn.example/b.sib",
			Status: "pending", CreatedAt: created},
		"no times": {ID: "6f1c2d9e-0000-4000-8000-000000000003", ScoreURL: "https://cdn.example/c.sib", Status: "error"},
	} {
		t.Run(name, func(t *testing.T) {
			model := scoreResultModel{ID: types.StringValue(score.ID), scoreAttributesModel: newScoreAttributes(score)}
			want, diags := types.ObjectValueFrom(ctx, objectType.AttrTypes, model)
			if diags.HasError() {
				t.Fatal(diags)
			}
			wantValue, err := want.ToTerraformValue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := model.terraformValue(ctx, scoreType)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(wantValue) {
				t.Errorf("field by field:\n%s\nby reflection:\n%s", got, wantValue)
			}
		})
	}
	t.Run("a nil list of renderings is null, as by reflection", func(t *testing.T) {
		model := scoreResultModel{ID: types.StringValue("x"), scoreAttributesModel: newScoreAttributes(&client.Score{ID: "x"})}
		model.Renderings = nil
		got, err := model.terraformValue(ctx, scoreType)
		if err != nil {
			t.Fatal(err)
		}
		var attrs map[string]tftypes.Value
		if err := got.As(&attrs); err != nil {
			t.Fatal(err)
		}
		if !attrs["renderings"].IsNull() {
			t.Errorf("renderings = %s, want null", attrs["renderings"])
		}
	})
	t.Run("a type without renderings is an error", func(t *testing.T) {
		_, err := scoreResultModel{}.terraformValue(ctx, tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String}})
		if err == nil || !strings.Contains(err.Error(), "renderings") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestScoreListValue: the list keeps its Terraform value, reads back as the
// framework's list, and compares as the framework's list does.
func TestScoreListValue(t *testing.T) {
	ctx := context.Background()
	listType := scoresListType(t)
	objectType, _ := listType.ElemType.(basetypes.ObjectType)
	scoreType, _ := objectType.TerraformType(ctx).(tftypes.Object)
	var elems []tftypes.Value
	var frameworkElems []attr.Value
	for _, id := range []string{"a", "b"} {
		model := scoreResultModel{ID: types.StringValue(id), scoreAttributesModel: newScoreAttributes(&client.Score{ID: id, Status: "idle"})}
		v, err := model.terraformValue(ctx, scoreType)
		if err != nil {
			t.Fatal(err)
		}
		elems = append(elems, v)
		o, diags := types.ObjectValueFrom(ctx, objectType.AttrTypes, model)
		if diags.HasError() {
			t.Fatal(diags)
		}
		frameworkElems = append(frameworkElems, o)
	}
	value, err := newScoreListValue(ctx, listType, elems)
	if err != nil {
		t.Fatal(err)
	}
	want := types.ListValueMust(objectType, frameworkElems)

	got, diags := value.ToListValue(ctx)
	if diags.HasError() || !got.Equal(want) {
		t.Errorf("ToListValue = %s, %v; want %s", got, diags, want)
	}
	raw, _ := value.ToTerraformValue(ctx)
	again, err := listType.ValueFromTerraform(ctx, raw)
	if err != nil || !again.Equal(value) || !value.Equal(again) {
		t.Errorf("ValueFromTerraform(ToTerraformValue) = %v, %v; not equal to the value", again, err)
	}
	fromList, diags := listType.ValueFromList(ctx, want)
	if diags.HasError() || !fromList.Equal(value) {
		t.Errorf("ValueFromList = %v, %v", fromList, diags)
	}
	shorter, err := newScoreListValue(ctx, listType, elems[:1])
	if err != nil {
		t.Fatal(err)
	}
	if value.Equal(shorter) || shorter.Equal(value) {
		t.Error("lists of different scores are equal")
	}
	if value.Equal(want) {
		t.Error("a score list equals a plain list value: the types differ")
	}
	if value.String() != want.String() {
		t.Errorf("String = %s, want %s", value.String(), want.String())
	}

	for name, tc := range map[string]struct {
		raw              tftypes.Value
		null, unknown    bool
		wantErrSubstring string
	}{
		"null":         {raw: tftypes.NewValue(listType.TerraformType(ctx), nil), null: true},
		"unknown":      {raw: tftypes.NewValue(listType.TerraformType(ctx), tftypes.UnknownValue), unknown: true},
		"untyped":      {raw: tftypes.Value{}, null: true},
		"another type": {raw: tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, nil), wantErrSubstring: "can't use"},
	} {
		t.Run(name, func(t *testing.T) {
			v, err := listType.ValueFromTerraform(ctx, tc.raw)
			if tc.wantErrSubstring != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrSubstring) {
					t.Fatalf("err = %v, want %q", err, tc.wantErrSubstring)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.IsNull() != tc.null || v.IsUnknown() != tc.unknown {
				t.Errorf("null %v unknown %v, want %v %v", v.IsNull(), v.IsUnknown(), tc.null, tc.unknown)
			}
		})
	}
	if zero := (scoreListValue{typ: listType}); !zero.IsNull() || zero.IsUnknown() || !zero.Equal(listType.ValueType(ctx)) {
		t.Error("the zero value is not the null list")
	}
	if !listType.Equal(newScoreListType(objectType)) || listType.Equal(listType.ListType) {
		t.Error("type equality")
	}
}
