package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ ephemeral.EphemeralResource              = (*scoreViewEphemeralResource)(nil)
	_ ephemeral.EphemeralResourceWithConfigure = (*scoreViewEphemeralResource)(nil)
)

// NewScoreViewEphemeralResource returns the mediaplatform_score_view ephemeral resource.
func NewScoreViewEphemeralResource() ephemeral.EphemeralResource {
	return &scoreViewEphemeralResource{}
}

type scoreViewEphemeralResource struct {
	client *client.Client
}

// scoreViewEphemeralModel is the managed view's model without renew_before, which
// has no meaning for a view that lives for one run.
type scoreViewEphemeralModel struct {
	ID            types.String `tfsdk:"id"`
	Score         types.String `tfsdk:"score"`
	Printable     types.Bool   `tfsdk:"printable"`
	Pages         types.String `tfsdk:"pages"`
	LicenseString types.String `tfsdk:"license_string"`
	Lang          types.String `tfsdk:"lang"`
	ExpiresIn     types.Int64  `tfsdk:"expires_in"`
	ViewerURL     types.String `tfsdk:"viewer_url"`
	CreatedAt     types.String `tfsdk:"created_at"`
	ExpiresAt     types.String `tfsdk:"expires_at"`
}

func (r *scoreViewEphemeralResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_score_view"
}

func (r *scoreViewEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A time-limited view of a score, created afresh on every Terraform run and never written to the " +
			"plan or the state (Terraform 1.10 or later). Use it to hand a `viewer_url` to something else in the same run, " +
			"such as a provisioner or another provider's write-only argument. Terraform opens ephemeral resources during " +
			"`plan` as well as `apply`, so every run creates new views; they expire on their own after `expires_in`. " +
			"For a view whose address stays the same across runs, use the managed resource of the same name.",
		Attributes: map[string]schema.Attribute{
			"score": schema.StringAttribute{
				MarkdownDescription: "The score to view: its UUID (e.g. `mediaplatform_score.x.id`) or its alias.",
				Required:            true,
				Validators:          []validator.String{scoreReference()},
			},
			"printable": schema.BoolAttribute{
				MarkdownDescription: "Whether the viewer may print. Unset leaves the service default (not printable).",
				Optional:            true,
			},
			"pages": schema.StringAttribute{
				MarkdownDescription: "Pages displayed, as comma-separated page numbers and ranges such as `1-3,5,8-9` (pages from 1). " +
					"Unset shows every page.",
				Optional:   true,
				Validators: []validator.String{pageList()},
			},
			"license_string": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Licensing text embedded in the view, at most %d characters.", maxLicenseString),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtMost(maxLicenseString)},
			},
			"lang": schema.StringAttribute{
				MarkdownDescription: "Viewer language as a BCP 47 tag, e.g. `en` or `fr-CA`.",
				Optional:            true,
				Validators:          []validator.String{languageTag()},
			},
			"expires_in": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Lifetime of the view in seconds, 0 to %d (24 hours); 0 or unset means the "+
					"service default of 7200 (2 hours).", maxViewExpiresIn),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, maxViewExpiresIn)},
			},
			"id": schema.StringAttribute{
				MarkdownDescription: "The view's identifier.",
				Computed:            true,
			},
			"viewer_url": schema.StringAttribute{
				MarkdownDescription: "Address of the view, new on every run. Whoever has it can open the view until it expires, so it is sensitive.",
				Computed:            true,
				Sensitive:           true,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the view was created (RFC 3339).",
				Computed:            true,
			},
			"expires_at": schema.StringAttribute{
				MarkdownDescription: "When the view expires (RFC 3339); its `viewer_url` answers 410 Gone from then on.",
				Computed:            true,
			},
		},
	}
}

func (r *scoreViewEphemeralResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Open creates the view. There is no Close: the API cannot delete a view, and it
// expires on its own.
func (r *scoreViewEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var data scoreViewEphemeralModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in := client.ViewInput{
		Pages:         data.Pages.ValueString(),
		LicenseString: data.LicenseString.ValueString(),
		Lang:          data.Lang.ValueString(),
		ExpiresIn:     int(data.ExpiresIn.ValueInt64()),
	}
	if !data.Printable.IsNull() {
		printable := data.Printable.ValueBool()
		in.Printable = &printable
	}
	view, err := r.client.CreateView(ctx, data.Score.ValueString(), in)
	if err != nil {
		what := "Check the view settings."
		if client.IsNotFound(err) {
			what = "The score does not exist: check the score argument, or publish the score first."
		}
		addClientError(&resp.Diagnostics, "Unable to create score view",
			fmt.Sprintf("Ephemeral view of score %q: %s", data.Score.ValueString(), what), err)
		return
	}
	data.ID = types.StringValue(view.ID)
	data.ViewerURL = types.StringValue(view.ViewerURL)
	data.CreatedAt = timeValue(view.CreatedAt)
	data.ExpiresAt = timeValue(view.ExpiresAt)
	resp.Diagnostics.Append(resp.Result.Set(ctx, &data)...)
}
