package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestScoreListSummaries: a result with include_resource carries the score's
// transpose and page count as GET /scores/{id} gives them, also when the listing gives
// each score as a summary (one GET for that score), and costs no GET on a platform
// that lists whole scores. (`terraform query` needs Terraform 1.14: this calls the
// result's builder in process.)
func TestScoreListSummaries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := &scoreResource{}
	var schemaResp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	var identityResp resource.IdentitySchemaResponse
	r.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &identityResp)
	req := list.ListRequest{IncludeResource: true, ResourceSchema: schemaResp.Schema, ResourceIdentitySchema: identityResp.IdentitySchema}
	for _, summaries := range []bool{true, false} {
		emu := newTestEmulatorWith(t, "the reading summaryListings", emulator.Options{RenderDelay: -1})
		ctl := emu.control(t, "readings and request counts")
		ctl.SetFaults(emulator.Faults{Readings: emulator.Readings{SummaryListings: summaries}})
		c := emu.client(t)
		published, err := c.PublishScore(ctx, client.PublishScoreInput{ScoreURL: accScoreURL(accName()), Transpose: true})
		if err != nil {
			t.Fatal(err)
		}
		whole, err := c.GetScore(ctx, published.ID)
		if err != nil || whole.PageCount() < 1 {
			t.Fatalf("the published score: %v, %v", whole, err)
		}
		listed, err := c.ListAllScores(ctx, client.ScoreCriteria{}, 0, 0)
		if err != nil || len(listed) != 1 || listed[0].Summary() != summaries {
			t.Fatalf("the listing (summaries %v): %v, %v", summaries, listed, err)
		}
		get := "GET " + ctl.PublishingURL("") + "/scores/{id}"
		before := ctl.Stats().Requests[get]
		result := scoreListResult(ctx, c, req, listed[0])
		gets := ctl.Stats().Requests[get] - before
		var transpose types.Bool
		var pages types.Int64
		result.Diagnostics.Append(result.Resource.GetAttribute(ctx, path.Root("transpose"), &transpose)...)
		result.Diagnostics.Append(result.Resource.GetAttribute(ctx, path.Root("page_count"), &pages)...)
		if result.Diagnostics.HasError() || !transpose.ValueBool() || pages.ValueInt64() != int64(whole.PageCount()) {
			t.Errorf("summaries %v: transpose %v, page_count %v, %v; the platform gives true and %d",
				summaries, transpose, pages, result.Diagnostics, whole.PageCount())
		}
		if want := map[bool]int{true: 1, false: 0}[summaries]; gets != want {
			t.Errorf("summaries %v: the result cost %d GETs, want %d", summaries, gets, want)
		}
	}
}
