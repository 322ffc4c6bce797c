package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	pathpkg "path"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ resource.Resource                   = (*scoreViewResource)(nil)
	_ resource.ResourceWithConfigure      = (*scoreViewResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*scoreViewResource)(nil)
	_ resource.ResourceWithValidateConfig = (*scoreViewResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*scoreViewResource)(nil)
	_ resource.ResourceWithImportState    = (*scoreViewResource)(nil)
)

// NewScoreViewResource returns the mediaplatform_score_view resource.
func NewScoreViewResource() resource.Resource {
	return &scoreViewResource{}
}

type scoreViewResource struct {
	client *client.Client
}

const (
	defaultRenewBefore = "10m"
	maxViewExpiresIn   = 86400
	maxLicenseString   = 1024
)

// scoreViewModel is a managed view: the attributes it shares with the ephemeral
// view, renew_before and expires_locally_at.
type scoreViewModel struct {
	scoreViewAttributesModel
	RenewBefore      types.String `tfsdk:"renew_before"`
	ExpiresLocallyAt types.String `tfsdk:"expires_locally_at"`
}

// scoreViewModelV1 is a managed view as schema versions 0 and 1 stored it, before
// expires_locally_at.
type scoreViewModelV1 struct {
	scoreViewAttributesModel
	RenewBefore types.String `tfsdk:"renew_before"`
}

// scoreViewAttributesModel holds the attributes the managed and the ephemeral
// mediaplatform_score_view share: all but renew_before.
type scoreViewAttributesModel struct {
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

// Descriptions of the arguments the managed and the ephemeral view share. The
// managed resource appends viewReplaces, since the API cannot update a view.
var (
	viewScoreDescription         = "The score to view: its UUID (e.g. `mediaplatform_score.x.id`) or its alias."
	viewPrintableDescription     = "Whether the viewer may print. Unset leaves the service default (not printable)."
	viewLicenseStringDescription = fmt.Sprintf("Licensing text embedded in the view, at most %d characters.", maxLicenseString)
	viewLangDescription          = "Viewer language as a BCP 47 tag, e.g. `en` or `fr-CA`."
	viewPagesDescription         = "Pages displayed, as comma-separated page numbers and ranges such as `1-3,5,8-9` " +
		"(pages from 1). Unset shows every page."
	viewExpiresInDescription = fmt.Sprintf("Lifetime of the view in seconds, 0 to %d (24 hours); 0 or unset means the "+
		"service default of 7200 (2 hours).", maxViewExpiresIn)
)

const viewReplaces = " Changing it creates a new view."

func (r *scoreViewResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_score_view"
}

func (r *scoreViewResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		// Version 1: id is a digest of the view id instead of the view id itself.
		// Version 2: expires_locally_at.
		Version: 2,
		MarkdownDescription: "A time-limited view of a score, kept across runs: its `viewer_url` stays the same until the view " +
			"is renewed. A plan made when less than `renew_before` is left before `expires_at` replaces the view and " +
			"warns why. The API cannot read a view back or delete it, so destroying the resource only removes it from the " +
			"state (the view expires on its own), and the resource cannot be imported. For a fresh URL on every run without " +
			"storing it in the state, use the ephemeral resource of the same name.\n\n" +
			"~> **Warning** Destroying the resource does not revoke the view: its `viewer_url` keeps opening the score until " +
			"`expires_at`. The `id` is a digest that does not open the view; `viewer_url` does and is sensitive.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "An identifier of the view that does not open it: a digest of the platform's view id " +
					"(which is the last segment of `viewer_url`). Terraform prints it in the clear, so it must not reveal the URL.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"score": schema.StringAttribute{
				MarkdownDescription: viewScoreDescription + viewReplaces,
				Required:            true,
				Validators:          []validator.String{scoreReference()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"printable": schema.BoolAttribute{
				MarkdownDescription: viewPrintableDescription + viewReplaces,
				Optional:            true,
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			},
			"pages": schema.StringAttribute{
				MarkdownDescription: viewPagesDescription + viewReplaces,
				Optional:            true,
				Validators:          []validator.String{pageList()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"license_string": schema.StringAttribute{
				MarkdownDescription: viewLicenseStringDescription + viewReplaces,
				Optional:            true,
				Validators:          []validator.String{maxCharacters(maxLicenseString)},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"lang": schema.StringAttribute{
				MarkdownDescription: viewLangDescription + viewReplaces,
				Optional:            true,
				Validators:          []validator.String{languageTag()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"expires_in": schema.Int64Attribute{
				MarkdownDescription: viewExpiresInDescription + viewReplaces,
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(0, maxViewExpiresIn)},
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"renew_before": schema.StringAttribute{
				MarkdownDescription: "How long before `expires_at` a plan replaces the view with a new one, as a duration such as " +
					"`10m` or `1h`. Default `" + defaultRenewBefore + "`. Set it longer than the time between runs so that a " +
					"published `viewer_url` never expires unnoticed. Changes apply in place.",
				Optional:   true,
				Computed:   true,
				Default:    stringdefault.StaticString(defaultRenewBefore),
				Validators: []validator.String{positiveDuration()},
			},
			"viewer_url": schema.StringAttribute{
				MarkdownDescription: "Address of the view. Whoever has it can open the view until it expires, so it is sensitive.",
				Computed:            true,
				Sensitive:           true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the view was created (RFC 3339).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"expires_at": schema.StringAttribute{
				MarkdownDescription: "When the view expires (RFC 3339).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			expiresLocallyAtAttribute: schema.StringAttribute{
				MarkdownDescription: "When the view expires by the clock of the machine that created it (RFC 3339, UTC): the " +
					"moment that machine received the platform's answer plus the view's lifetime (`expires_at` minus " +
					"`created_at`, both on the platform's own clock). Plans judge the time left before `renew_before` against " +
					"it, so a platform clock or a gateway's `Date` header that is hours off neither renews a fresh view nor " +
					"keeps an expired one. Null for a view created before the provider recorded it; plans then judge " +
					"`expires_at` against the platform's clock as the `Date` header of its answers gives it.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

func (r *scoreViewResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// defaultViewLifetime is the platform's view lifetime when expires_in is unset or 0.
const defaultViewLifetime = 7200 * time.Second

// ValidateConfig rejects a renew_before that is not shorter than the view's
// lifetime: every plan would replace the view, forever.
func (r *scoreViewResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config scoreViewModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() || config.RenewBefore.IsNull() || config.RenewBefore.IsUnknown() || config.ExpiresIn.IsUnknown() {
		return
	}
	renewBefore, err := time.ParseDuration(config.RenewBefore.ValueString())
	if err != nil {
		return // the attribute's validator reports it
	}
	lifetime := defaultViewLifetime
	if n := config.ExpiresIn.ValueInt64(); n > 0 {
		lifetime = time.Duration(n) * time.Second
	}
	if renewBefore >= lifetime {
		resp.Diagnostics.AddAttributeError(path.Root("renew_before"), "renew_before is not shorter than the view's lifetime",
			fmt.Sprintf("renew_before (%s) must be shorter than the view's lifetime (%s, from expires_in): otherwise every "+
				"plan finds the view within renew_before of its expiry and replaces it, forever. Lower renew_before or raise "+
				"expires_in.", config.RenewBefore.ValueString(), lifetime))
	}
}

// ModifyPlan replaces a view that expires within renew_before. Terraform replaces a
// resource only for a RequiresReplace path whose value changes, so expires_at and the
// other values of the old view become unknown in the plan.
func (r *scoreViewResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	checkSettingsAtPlan(r.client, client.AreaPublishing, req, resp, false, "Creating this score view needs it.")
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return // creation or destruction
	}
	var plan, state scoreViewModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || plan.RenewBefore.IsUnknown() {
		return
	}
	renewBefore, err := time.ParseDuration(plan.RenewBefore.ValueString())
	if err != nil {
		return // the schema validator has reported it
	}
	left, err := state.timeLeft(time.Now(), func() time.Duration { return r.platformClockOffset(ctx, req.Private) })
	if err != nil {
		resp.Diagnostics.AddAttributeWarning(path.Root("expires_at"), "Score view will be replaced",
			fmt.Sprintf("The view of score %q has no readable expires_at (%q) in the state, so this plan replaces it with a new view.",
				state.Score.ValueString(), state.ExpiresAt.ValueString()))
	} else {
		if left >= renewBefore {
			if plan.ExpiresLocallyAt.IsUnknown() {
				// A view stored without it (null) keeps it null: it never changes in place.
				resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(expiresLocallyAtAttribute), state.ExpiresLocallyAt)...)
			}
			return
		}
		reason := fmt.Sprintf("expires in %s, less than renew_before (%s)", left.Round(time.Second), plan.RenewBefore.ValueString())
		advice := "Lower renew_before or raise expires_in to renew less often."
		if left <= 0 {
			reason = fmt.Sprintf("expired %s ago", (-left).Round(time.Second))
			// renew_before cannot help a view that expired between two runs: only a
			// lifetime longer than the time between runs can.
			advice = "Its viewer_url stopped working when it expired: the time between two runs of this configuration is " +
				"longer than the view lasts. Raise expires_in (at most 86400 s) above that time, or run it more often."
		}
		when := "expires_at " + state.ExpiresAt.ValueString()
		if _, err := time.Parse(time.RFC3339Nano, state.ExpiresLocallyAt.ValueString()); err == nil {
			when = "expires_locally_at " + state.ExpiresLocallyAt.ValueString()
		}
		resp.Diagnostics.AddAttributeWarning(path.Root("expires_at"), "Score view will be replaced",
			fmt.Sprintf("The view %s of score %q %s (%s), so this plan replaces it with a new view and a new "+
				"viewer_url. %s", state.ID.ValueString(), state.Score.ValueString(), reason, when, advice))
	}
	plan.ID = types.StringUnknown()
	plan.ViewerURL = types.StringUnknown()
	plan.CreatedAt = types.StringUnknown()
	plan.ExpiresAt = types.StringUnknown()
	plan.ExpiresLocallyAt = types.StringUnknown()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("expires_at"))
}

func (r *scoreViewResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan scoreViewModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// A create already on the wire when Terraform is stopped (Ctrl-C, SIGTERM) may
	// finish, for at most stopGrace more, as a publish does: the platform has made the
	// view, and only its answer brings the view into the state. Without it the next
	// apply would create the view again, and the lost viewer URL would stay open, held
	// by nobody, until it expired (as it does for a create cut at stopGrace).
	createCtx, stopCreate := withGrace(ctx, stopGrace)
	scoreUUID, received := plan.create(createCtx, r.client, "View", &resp.Diagnostics)
	stopCreate()
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ExpiresLocallyAt = expiresLocallyAt(received, plan.CreatedAt, plan.ExpiresAt)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, viewScoreKey, privateString(scoreUUID))...)
	r.recordPlatformClock(ctx, resp.Private, &resp.Diagnostics)
}

// expiresLocallyAtAttribute is the attribute holding when a view expires by this
// machine's clock.
const expiresLocallyAtAttribute = "expires_locally_at"

// expiresLocallyAt is when a view expires by this machine's clock: received (the
// moment this machine received the create answer) plus the view's lifetime, taken
// from its own createdAt and expiresAt. Both are on the platform's clock, so their
// difference holds whatever that clock or a gateway's Date header says. Null when
// either is missing or unreadable.
func expiresLocallyAt(received time.Time, createdAt, expiresAt types.String) types.String {
	created, err1 := time.Parse(time.RFC3339Nano, createdAt.ValueString())
	expires, err2 := time.Parse(time.RFC3339Nano, expiresAt.ValueString())
	if received.IsZero() || err1 != nil || err2 != nil {
		return types.StringNull()
	}
	return timeValue(received.Add(expires.Sub(created)).Truncate(time.Millisecond))
}

// timeLeft is how long the view has left at now (this machine's clock). A view
// with expires_locally_at is judged on it alone. One stored without it (created
// before it was recorded) is judged on expires_at, which is on the platform's
// clock: platformOffset gives that clock's offset from this machine's, as learned
// from the Date header. err is set when neither timestamp reads.
func (m scoreViewModel) timeLeft(now time.Time, platformOffset func() time.Duration) (time.Duration, error) {
	if local, err := time.Parse(time.RFC3339Nano, m.ExpiresLocallyAt.ValueString()); err == nil {
		return local.Sub(now), nil
	}
	expiresAt, err := time.Parse(time.RFC3339Nano, m.ExpiresAt.ValueString())
	if err != nil {
		return 0, err
	}
	return expiresAt.Sub(now.Add(platformOffset())), nil
}

// viewScoreKey is the private state key holding the UUID of the score a view was
// created for: score may name it by alias, and an alias can move to another score.
const viewScoreKey = "score_uuid"

// viewClockKey is the private state key holding the offset of the platform's clock
// (milliseconds, platform minus local) when the view was last created or read: a plan
// with -refresh=false makes no request to learn it from.
const viewClockKey = "platform_clock_offset_ms"

// privateKeys is what a resource's private state offers (CreateResponse.Private and
// the others are each of their own type).
type privateKeys interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
	SetKey(context.Context, string, []byte) diag.Diagnostics
}

// recordPlatformClock keeps the offset of the platform's clock in the private state,
// when this run has learned it: a view stored without expires_locally_at is judged
// on it.
func (r *scoreViewResource) recordPlatformClock(ctx context.Context, private privateKeys, diags *diag.Diagnostics) {
	if offset, known := r.client.PlatformClockOffset(); known {
		b, _ := json.Marshal(offset.Milliseconds())
		diags.Append(private.SetKey(ctx, viewClockKey, b)...)
	}
}

// platformClockOffset is the offset of the platform's clock: as this run learned it,
// else as recorded when the view was last created or read, else none (this machine's
// clock).
func (r *scoreViewResource) platformClockOffset(ctx context.Context, private privateKeys) time.Duration {
	if r.client != nil {
		if offset, known := r.client.PlatformClockOffset(); known {
			return offset
		}
	}
	if private == nil {
		return 0
	}
	var ms int64
	if b, _ := private.GetKey(ctx, viewClockKey); len(b) > 0 && json.Unmarshal(b, &ms) == nil {
		return time.Duration(ms) * time.Millisecond
	}
	return 0
}

// Read cannot read the view back (the API has no such call), but it checks the view's
// score: a view whose score is gone, or whose alias now names another score, opens
// nothing any more, so it leaves the state and the plan creates a new one. Expiry is
// handled at plan time by ModifyPlan.
func (r *scoreViewResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state scoreViewModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx = logResource(ctx, state.ID.ValueString())
	score, err := r.client.RefreshScore(ctx, state.Score.ValueString())
	if client.IsNotFound(err) {
		resp.Diagnostics.AddWarning("Score view no longer works",
			fmt.Sprintf("The score %q of view %s no longer exists, so the view's viewer_url opens nothing; the view is "+
				"removed from the state and the plan creates a new one.", state.Score.ValueString(), state.ID.ValueString()))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		addReadError(ctx, r.client, &resp.Diagnostics, "Unable to read the score of a score view",
			fmt.Sprintf("View %s of score %q: reading the score failed.", state.ID.ValueString(), state.Score.ValueString()), err)
		return
	}
	recorded, diags := req.Private.GetKey(ctx, viewScoreKey)
	resp.Diagnostics.Append(diags...)
	if was := privateStringValue(recorded); was != "" && was != score.ID {
		resp.Diagnostics.AddWarning("Score view no longer works",
			fmt.Sprintf("The view %s was created for score %s, but %q now names score %s (the score was replaced outside "+
				"Terraform), so the view's viewer_url opens nothing; the view is removed from the state and the plan creates "+
				"a new one.", state.ID.ValueString(), was, state.Score.ValueString(), score.ID))
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	// A state written before the score was recorded learns it now.
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, viewScoreKey, privateString(score.ID))...)
	r.recordPlatformClock(ctx, resp.Private, &resp.Diagnostics)
}

// privateString encodes s as a private state value (which must be JSON).
func privateString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// privateStringValue decodes a private state value written by privateString ("" if none).
func privateStringValue(b []byte) string {
	var s string
	if len(b) == 0 || json.Unmarshal(b, &s) != nil {
		return ""
	}
	return s
}

// Update handles renew_before, the only argument that does not replace the view.
func (r *scoreViewResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state scoreViewModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.ExpiresLocallyAt.IsUnknown() {
		// Left unknown when ModifyPlan could not judge the view (renew_before unknown):
		// the view is the same, and so is when it expires.
		plan.ExpiresLocallyAt = state.ExpiresLocallyAt
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete only forgets the view: the API cannot delete one, and it expires on its own.
func (r *scoreViewResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state scoreViewModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.AddWarning("Score view URL stays live",
		fmt.Sprintf("The view %s of score %q was removed from the state, but the platform cannot revoke a view: its "+
			"viewer_url keeps opening the score until it expires at %s. Anyone who has it can use it until then.",
			state.ID.ValueString(), state.Score.ValueString(), state.ExpiresAt.ValueString()))
}

// ImportState refuses: the API cannot read a view back, so an import would have
// nothing to fill the state with (not even viewer_url). Without it Terraform would
// only say that the provider does not implement import.
func (r *scoreViewResource) ImportState(_ context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.AddError("Cannot import score view",
		fmt.Sprintf("A mediaplatform_score_view cannot be imported (id %q): the platform's API cannot read a view back, so "+
			"there is nothing to import its viewer_url, settings and expiry from. Remove the import block (or do not run "+
			"terraform import for it); Terraform then creates the view anew, with a new viewer_url.", req.ID))
}

// viewID is the identifier Terraform shows for a view: a digest of the platform's
// view id, since that id is the last segment of the secret viewer_url and Terraform
// prints ids in the clear ("Creation complete [id=…]", terraform state show).
func viewID(platformID string) string {
	sum := sha256.Sum256([]byte(platformID))
	return "view-" + hex.EncodeToString(sum[:10])
}

// newViewID is the id of a view just created: the digest of the platform's view id,
// or, for an answer without one, of the view id in its viewer address (the digest of
// the whole address where it has no last segment): never one id for two views.
func newViewID(platformID, viewerURL string) types.String {
	if platformID != "" {
		return types.StringValue(viewID(platformID))
	}
	if id := upgradedViewID("", viewerURL); !id.IsNull() && id.ValueString() != "" {
		return id
	}
	return types.StringValue(viewID(viewerURL))
}

// viewDigestForm matches an id in exactly the form viewID writes.
var viewDigestForm = regexp.MustCompile(`^view-[0-9a-f]{20}$`)

// upgradedViewID is the id of a version 0 state in version 1: the digest. An id
// already in the digest's form is kept only when it is not the viewer URL's last
// segment (the platform's own view ids may look like view-<hex>, and such an id is
// the secret itself); an empty id gets the digest of the view id in viewer_url.
func upgradedViewID(id, viewerURL string) types.String {
	secret := ""
	if u, err := url.Parse(viewerURL); err == nil && viewerURL != "" {
		secret = pathpkg.Base(u.Path)
	}
	switch {
	case viewDigestForm.MatchString(id) && id != secret:
		return types.StringValue(id)
	case id != "":
		return types.StringValue(viewID(id))
	case secret != "" && secret != "/" && secret != ".":
		return types.StringValue(viewID(secret))
	}
	return types.StringNull()
}

// priorViewSchema is the schema of an earlier version that stored no
// expires_locally_at (versions 0 and 1 differ only in what id holds).
func (r *scoreViewResource) priorViewSchema(ctx context.Context, version int64) *schema.Schema {
	current := &resource.SchemaResponse{}
	r.Schema(ctx, resource.SchemaRequest{}, current)
	prior := current.Schema
	prior.Version = version
	prior.Attributes = maps.Clone(prior.Attributes)
	delete(prior.Attributes, expiresLocallyAtAttribute)
	return &prior
}

// UpgradeState moves states written before version 1, whose id was the platform's
// view id (and so revealed the viewer URL), to the digest; and states written
// before version 2 to a null expires_locally_at: when this machine received the
// view was not recorded, so plans judge them on the platform's clock.
func (r *scoreViewResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	upgrade := func(fixID bool) func(context.Context, resource.UpgradeStateRequest, *resource.UpgradeStateResponse) {
		return func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
			var prior scoreViewModelV1
			resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
			if resp.Diagnostics.HasError() {
				return
			}
			if fixID {
				prior.ID = upgradedViewID(prior.ID.ValueString(), prior.ViewerURL.ValueString())
			}
			state := scoreViewModel{
				scoreViewAttributesModel: prior.scoreViewAttributesModel,
				RenewBefore:              prior.RenewBefore,
				ExpiresLocallyAt:         types.StringNull(),
			}
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		}
	}
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: r.priorViewSchema(ctx, 0), StateUpgrader: upgrade(true)},
		1: {PriorSchema: r.priorViewSchema(ctx, 1), StateUpgrader: upgrade(false)},
	}
}

// create creates the view the arguments describe and sets the attributes the
// platform computes; it returns the UUID of the viewed score and when this machine
// received the platform's answer. what names the view in an error detail.
func (m *scoreViewAttributesModel) create(ctx context.Context, c *client.Client, what string, diags *diag.Diagnostics) (scoreUUID string, received time.Time) {
	in := client.ViewInput{
		Pages:         m.Pages.ValueString(),
		LicenseString: m.LicenseString.ValueString(),
		Lang:          m.Lang.ValueString(),
		ExpiresIn:     int(m.ExpiresIn.ValueInt64()),
	}
	if !m.Printable.IsNull() {
		printable := m.Printable.ValueBool()
		in.Printable = &printable
	}
	sent := time.Now()
	view, err := c.CreateView(ctx, m.Score.ValueString(), in)
	received = time.Now()
	if err != nil {
		hint := "Check the view settings."
		if client.IsNotFound(err) {
			hint = "The score does not exist: check the score argument, or publish the score first."
		}
		if cutByStopBound(ctx) {
			diags.AddError("Unable to create score view", stopBoundLead("the create of this view", stopGrace)+"\n\n"+
				fmt.Sprintf("%s of score %q: the platform may have made the view, and the outcome is unknown; a view has no "+
					"name to find it by, so the next apply creates another, and this one's viewer URL stays valid until it "+
					"expires (expires_in).", what, m.Score.ValueString())+"\n\nCause: "+err.Error())
			return "", time.Time{}
		}
		addClientError(diags, "Unable to create score view",
			fmt.Sprintf("%s of score %q: %s", what, m.Score.ValueString(), hint), err)
		return "", time.Time{}
	}
	m.ID = newViewID(view.ID, view.ViewerURL)
	m.ViewerURL = types.StringValue(view.ViewerURL)
	m.CreatedAt = timeValue(view.CreatedAt)
	m.ExpiresAt = timeValue(view.ExpiresAt)
	if view.ExpiresAt.IsZero() {
		// An answer without the expiry: the view lasts the lifetime asked for (or the
		// service default) from no earlier than when the request left: counted from then,
		// the plan renews it in time.
		lifetime := defaultViewLifetime
		if n := m.ExpiresIn.ValueInt64(); n > 0 {
			lifetime = time.Duration(n) * time.Second
		}
		m.ExpiresAt = timeValue(sent.UTC().Add(lifetime))
	}
	return view.ScoreID, received
}
