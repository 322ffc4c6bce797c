package provider

// The data sources over the administrator API, the score publishing API and the
// command resource, and what they share: the score object's attributes and model,
// the score filters, and the rendering of free-form JSON as Terraform strings.

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// knownScoreStatuses are the statuses the contract names. The API may add others.
var knownScoreStatuses = []string{
	client.ScoreStatusPending, client.ScoreStatusRendering, client.ScoreStatusIdle, client.ScoreStatusError,
}

// scoreFilterModel holds the score filters that mediaplatform_scores,
// mediaplatform_score_count and the list resource mediaplatform_score share; their
// models embed it, and scoreFilters declares its attributes.
type scoreFilterModel struct {
	Status   types.String `tfsdk:"status"`
	ScoreURL types.String `tfsdk:"score_url"`
}

// criteria is the filter of a list or count: a filter left unset does not filter.
func (f scoreFilterModel) criteria() client.ScoreCriteria {
	return client.ScoreCriteria{Status: f.Status.ValueString(), ScoreURL: f.ScoreURL.ValueString()}
}

// scoreFilter is one optional string attribute of scoreFilterModel, described once
// for every schema kind that offers it.
type scoreFilter struct {
	description string
	validators  []validator.String
}

// scoreFilters are the score filters by attribute name.
var scoreFilters = map[string]scoreFilter{
	"status": {
		description: "Only scores with this status: `pending`, `rendering`, `idle` (rendered, ready) or " +
			"`error` (rendering failed). Matched by equality. Another value is accepted with a warning, since the platform " +
			"may add statuses, but it matches no score unless the platform uses it. Default: any status.",
		validators: []validator.String{stringvalidator.LengthAtLeast(1), knownScoreStatus()},
	},
	"score_url": {
		description: "Only scores published from exactly this address (an absolute `http` or `https` URL, " +
			"compared as a string; whitespace at either end is refused at plan). Default: any address.",
		validators: []validator.String{scoreURL()},
	},
}

// withScoreFilters adds the score filters to attrs, each built by attribute for the
// schema kind of attrs, and returns attrs.
func withScoreFilters[A any](attrs map[string]A, attribute func(scoreFilter) A) map[string]A {
	for name, f := range scoreFilters {
		attrs[name] = attribute(f)
	}
	return attrs
}

// dataSourceAttribute is the filter in a data source's schema.
func (f scoreFilter) dataSourceAttribute() schema.Attribute {
	return schema.StringAttribute{MarkdownDescription: f.description, Optional: true, Validators: f.validators}
}

// listAttribute is the filter in a list resource's schema.
func (f scoreFilter) listAttribute() listschema.Attribute {
	return listschema.StringAttribute{MarkdownDescription: f.description, Optional: true, Validators: f.validators}
}

// scoreResultModel is one score of mediaplatform_scores: its UUID and its attributes.
type scoreResultModel struct {
	ID types.String `tfsdk:"id"`
	scoreAttributesModel
}

// scoreAttributesModel are a score's attributes other than its UUID, as
// scoreResultAttributes describes them.
type scoreAttributesModel struct {
	ScoreID    types.String          `tfsdk:"score_id"`
	ScoreURL   types.String          `tfsdk:"score_url"`
	Transpose  types.Bool            `tfsdk:"transpose"`
	Status     types.String          `tfsdk:"status"`
	CreatedAt  types.String          `tfsdk:"created_at"`
	UpdatedAt  types.String          `tfsdk:"updated_at"`
	PageCount  types.Int64           `tfsdk:"page_count"`
	Publisher  types.String          `tfsdk:"publisher"`
	Renderings []scoreRenderingModel `tfsdk:"renderings"`
}

type scoreRenderingModel struct {
	Format types.String `tfsdk:"format"`
	Pages  types.Int64  `tfsdk:"pages"`
}

// newScoreAttributes copies a score into the model. The alias and the publisher are
// null when the platform reports none; transpose, the page count and the renderings
// are null when the answer left them out (a listing's summary: the data sources read
// such a score whole first, client.WholeScore, so only a score deleted meanwhile
// keeps them null).
func newScoreAttributes(s *client.Score) scoreAttributesModel {
	m := scoreAttributesModel{
		ScoreID:    optionalString(s.Alias),
		ScoreURL:   types.StringValue(s.ScoreURL),
		Transpose:  types.BoolValue(s.Transpose),
		Status:     types.StringValue(s.Status),
		CreatedAt:  timeValue(s.CreatedAt),
		UpdatedAt:  timeValue(s.UpdatedAt),
		PageCount:  pageCount(s),
		Publisher:  optionalString(s.Publisher),
		Renderings: make([]scoreRenderingModel, 0, len(s.Renderings)),
	}
	if s.TransposeAbsent {
		m.Transpose = types.BoolNull()
	}
	if s.RenderingsAbsent && s.Status == client.ScoreStatusIdle {
		m.Renderings = nil
	}
	for _, r := range s.Renderings {
		m.Renderings = append(m.Renderings, scoreRenderingModel{
			Format: types.StringValue(r.Format),
			Pages:  types.Int64Value(int64(r.Pages)),
		})
	}
	return m
}

// pageCount is the score's page count: null when the answer left out the renderings
// of a score that has rendered (a listing's summary), 0 before rendering has
// finished.
func pageCount(s *client.Score) types.Int64 {
	if s.RenderingsAbsent && s.Status == client.ScoreStatusIdle {
		return types.Int64Null()
	}
	return types.Int64Value(int64(s.PageCount()))
}

// scoreResultAttributes are the computed attributes of one score, without id (whose
// meaning differs between the single score and the list).
func scoreResultAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"score_id": schema.StringAttribute{
			MarkdownDescription: "The score's alias (`publisher.scoreId`); null when it was published without one.",
			Computed:            true,
		},
		"score_url": schema.StringAttribute{
			MarkdownDescription: "Address of the score file the score was published from.",
			Computed:            true,
		},
		"transpose": schema.BoolAttribute{
			MarkdownDescription: "Whether transposed renderings are produced (`options.transpose`).",
			Computed:            true,
		},
		"status": schema.StringAttribute{
			MarkdownDescription: "Rendering status: `pending`, `rendering`, `idle` (rendered, ready) or `error` (rendering " +
				"failed); another platform's word for one of these stages (Mux's `ready`, MediaConvert's `COMPLETE`) is read " +
				"as that stage, and any other status is passed through.",
			Computed: true,
		},
		"created_at": schema.StringAttribute{
			MarkdownDescription: "When the score was published (RFC 3339, UTC).",
			Computed:            true,
		},
		"updated_at": schema.StringAttribute{
			MarkdownDescription: "When the score record last changed (RFC 3339, UTC).",
			Computed:            true,
		},
		"page_count": schema.Int64Attribute{
			MarkdownDescription: "Number of rendered pages (the largest over the renderings); 0 until rendering has finished.",
			Computed:            true,
		},
		"publisher": schema.StringAttribute{
			MarkdownDescription: "Account name of the user who published the score (`publisher.identity.user`); null when the platform reports none.",
			Computed:            true,
		},
		"renderings": schema.ListNestedAttribute{
			MarkdownDescription: "The rendered formats; empty until rendering has finished.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{
					"format": schema.StringAttribute{
						MarkdownDescription: "Rendering format, e.g. `svg`.",
						Computed:            true,
					},
					"pages": schema.Int64Attribute{
						MarkdownDescription: "Number of pages in this rendering.",
						Computed:            true,
					},
				},
			},
		},
	}
}
