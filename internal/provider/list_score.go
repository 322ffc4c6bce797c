package provider

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	fwpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ list.ListResource              = (*scoreListResource)(nil)
	_ list.ListResourceWithConfigure = (*scoreListResource)(nil)
)

// NewScoreListResource returns the list resource mediaplatform_score, for
// `terraform query` (Terraform 1.14 and later).
func NewScoreListResource() list.ListResource {
	return &scoreListResource{}
}

type scoreListResource struct {
	client *client.Client
}

type scoreListModel struct {
	scoreFilterModel
	AliasPrefix types.String `tfsdk:"alias_prefix"`
}

func (r *scoreListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_score"
}

func (r *scoreListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: fmt.Sprintf("Every published score matching the filters, in the platform's order, for `terraform query` "+
			"(Terraform 1.14 and later). Each result is the score's identity (its UUID) and, when asked for "+
			"(`include_resource`, or `-generate-config-out`), the whole resource, so that the generated `import` and "+
			"`resource` blocks plan with no change. The provider reads every page of %d scores, each overlapping the one "+
			"before, so that scores other clients publish or delete meanwhile neither hide another nor show twice: `status` and `score_url` "+
			"filter on the platform, `alias_prefix` in the provider. A result is shown by its alias, else by the "+
			"score file's name.", client.MaxListLimit),
		Attributes: withScoreFilters(map[string]listschema.Attribute{
			"alias_prefix": listschema.StringAttribute{
				MarkdownDescription: "Only scores whose alias (`score_id`) starts with this text; scores without an alias " +
					"never match. Compared as written (case-sensitive).",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthBetween(1, 128)},
			},
		}, scoreFilter.listAttribute),
	}
}

func (r *scoreListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// List streams the matching scores page by page, as the platform serves them; an error
// ends the stream with a diagnostic, after the results already sent.
func (r *scoreListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg scoreListModel
	if diags := req.Config.Get(ctx, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	prefix := cfg.AliasPrefix.ValueString()
	stream.Results = func(push func(list.ListResult) bool) {
		sent := int64(0)
		for score, err := range r.client.AllScores(ctx, cfg.criteria(), 0, 0) {
			if err != nil {
				result := list.ListResult{}
				addClientError(&result.Diagnostics, "Unable to list scores",
					fmt.Sprintf("Listing the scores failed after %d results.", sent), err)
				push(result)
				return
			}
			if prefix != "" && !strings.HasPrefix(score.Alias, prefix) {
				continue
			}
			if !push(scoreListResult(ctx, r.client, req, score)) {
				return
			}
			if sent++; req.Limit > 0 && sent >= req.Limit {
				return
			}
		}
	}
}

// scoreListResult is one result: the score's identity, a name a person recognises,
// and with IncludeResource the resource as Read and ImportState would store it.
func scoreListResult(ctx context.Context, c *client.Client, req list.ListRequest, score *client.Score) list.ListResult {
	result := req.NewListResult(ctx)
	result.DisplayName = scoreDisplayName(score)
	result.Diagnostics.Append(result.Identity.Set(ctx, scoreIdentityModel{ID: types.StringValue(score.ID)})...)
	if !req.IncludeResource {
		return result
	}
	// A summary (the listing left out options or renderings) is read whole, once,
	// for the resource; the identity and the name need nothing more.
	if whole, err := c.WholeScore(ctx, score); err == nil {
		score = whole
	} else if !client.IsNotFound(err) {
		addClientError(&result.Diagnostics, "Unable to read score",
			fmt.Sprintf("Score %s, listed as a summary, could not be read whole.", score.ID), err)
		return result
	}
	var m scoreModel
	m.refresh(score)
	for _, attr := range []struct {
		name  string
		value any
	}{
		{"id", m.ID}, {"score_url", m.ScoreURL}, {"score_id", m.ScoreID}, {"transpose", m.Transpose},
		{"purge_on_destroy", false}, {"wait_for_rendering", true}, {"status", m.Status},
		{"created_at", m.CreatedAt}, {"updated_at", m.UpdatedAt}, {"page_count", m.PageCount},
	} {
		result.Diagnostics.Append(result.Resource.SetAttribute(ctx, fwpath.Root(attr.name), attr.value)...)
	}
	return result
}

// scoreDisplayName is the score's alias, else the last segment of its file's address.
func scoreDisplayName(score *client.Score) string {
	if score.Alias != "" {
		return score.Alias
	}
	if u, err := url.Parse(score.ScoreURL); err == nil {
		if name := path.Base(u.Path); name != "" && name != "/" && name != "." {
			if unescaped, err := url.PathUnescape(name); err == nil {
				return unescaped
			}
			return name
		}
	}
	return score.ID
}
