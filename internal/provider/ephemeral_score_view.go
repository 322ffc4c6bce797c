package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

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
				MarkdownDescription: viewScoreDescription,
				Required:            true,
				Validators:          []validator.String{scoreReference()},
			},
			"printable": schema.BoolAttribute{
				MarkdownDescription: viewPrintableDescription,
				Optional:            true,
			},
			"pages": schema.StringAttribute{
				MarkdownDescription: viewPagesDescription,
				Optional:            true,
				Validators:          []validator.String{pageList()},
			},
			"license_string": schema.StringAttribute{
				MarkdownDescription: viewLicenseStringDescription,
				Optional:            true,
				Validators:          []validator.String{maxCharacters(maxLicenseString)},
			},
			"lang": schema.StringAttribute{
				MarkdownDescription: viewLangDescription,
				Optional:            true,
				Validators:          []validator.String{languageTag()},
			},
			"expires_in": schema.Int64Attribute{
				MarkdownDescription: viewExpiresInDescription,
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(0, maxViewExpiresIn)},
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
// expires on its own. The view has the managed view's attributes but renew_before,
// which has no meaning for a view that lives for one run.
func (r *scoreViewEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var data scoreViewAttributesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	data.create(ctx, r.client, "Ephemeral view", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Result.Set(ctx, &data)...)
}
