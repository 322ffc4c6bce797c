package provider

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ ephemeral.EphemeralResource              = (*accessTokenEphemeralResource)(nil)
	_ ephemeral.EphemeralResourceWithConfigure = (*accessTokenEphemeralResource)(nil)
	_ ephemeral.EphemeralResourceWithRenew     = (*accessTokenEphemeralResource)(nil)
	_ ephemeral.EphemeralResourceWithClose     = (*accessTokenEphemeralResource)(nil)
)

// NewAccessTokenEphemeralResource returns the mediaplatform_access_token ephemeral resource.
func NewAccessTokenEphemeralResource() ephemeral.EphemeralResource {
	return &accessTokenEphemeralResource{}
}

type accessTokenEphemeralResource struct {
	client *client.Client
}

type accessTokenModel struct {
	AccessToken types.String `tfsdk:"access_token"`
	TokenType   types.String `tfsdk:"token_type"`
	ExpiresAt   types.String `tfsdk:"expires_at"`
}

// accessTokenPrivateKey names the token handle in the private data that Terraform
// hands back to Renew and Close. Private data of an ephemeral resource is never
// persisted; it holds the token alone, which extension and removal need.
const accessTokenPrivateKey = "token"

type accessTokenHandle struct {
	Token string `json:"token"`
}

func (r *accessTokenEphemeralResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_access_token"
}

func (r *accessTokenEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A platform access token of its own for other tools in the same Terraform run (Terraform 1.10 or " +
			"later), never written to the plan or the state. Opening it runs the password grant with the provider's platform " +
			"credentials (`platform_url`, `client_id`/`client_secret` or `basic_token`, `username`, `password`) for a new " +
			"token, separate from the one the provider uses itself. Terraform extends the token while the run still needs " +
			"it and removes it on the platform when the run no longer does, so it is invalid once Terraform finishes. A run " +
			"that is stopped (Ctrl-C, `SIGTERM` to the process group, Terraform killed) may not close it; the provider " +
			"then removes it when its own process ends, within the same window as its own token. " +
			"Terraform opens ephemeral resources during `plan` as well as `apply`, each time with a new token.",
		Attributes: map[string]schema.Attribute{
			"access_token": schema.StringAttribute{
				MarkdownDescription: "The access token, sent to the platform as `Authorization: Bearer <access_token>` " +
					"(or in the `serviceAccessToken` cookie). Sensitive.",
				Computed:  true,
				Sensitive: true,
			},
			"token_type": schema.StringAttribute{
				MarkdownDescription: "The token type, `Bearer`.",
				Computed:            true,
			},
			"expires_at": schema.StringAttribute{
				MarkdownDescription: "When the token expires unless extended (RFC 3339), as granted. Terraform extends it " +
					"before then while the run lasts, so it stays valid until the run ends even past this time; it is " +
					"null when the platform did not give a lifetime.",
				Computed: true,
			},
		},
	}
}

func (r *accessTokenEphemeralResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// Open grants a new token: a token of its own, which the provider's shared token
// must not be, since the provider removes that one when it ends.
func (r *accessTokenEphemeralResource) Open(ctx context.Context, _ ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	tok, err := r.client.GrantAccessToken(ctx)
	if err != nil && interrupted(ctx, err) {
		// The grant, if it reached the platform, may still be carried out: its answer
		// is lost, and the token it brings can be removed by nobody.
		resp.Diagnostics.AddError("Unable to obtain access token", "Interrupted: Terraform was stopped (Ctrl-C or a "+
			"cancelled run) while the provider was getting this token; the settings are not at fault, run the command "+
			"again. If its grant had reached the platform, the platform may still carry it out: the token then stays "+
			"live until it expires, one token lifetime (the expires_in of the platform's grants) after the grant, and "+
			"nobody receives it.\n\nCause: "+err.Error())
		return
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to obtain access token",
			"The password grant for a new platform access token (ephemeral mediaplatform_access_token) failed.", err)
		return
	}
	handle, err := json.Marshal(accessTokenHandle{Token: tok.Token})
	if err != nil {
		resp.Diagnostics.AddError("Unable to obtain access token", "Encoding the token handle failed. This is a bug in the provider; please report it.\n\nCause: "+err.Error())
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, accessTokenPrivateKey, handle)...)
	resp.RenewAt = accessTokenRenewAt(tok.ExpiresAt, time.Now())
	resp.Diagnostics.Append(resp.Result.Set(ctx, &accessTokenModel{
		AccessToken: types.StringValue(tok.Token),
		TokenType:   types.StringValue(tok.TokenType),
		ExpiresAt:   timeValue(tok.ExpiresAt),
	})...)
	tflog.Debug(ctx, "Ephemeral platform access token granted", map[string]any{"renew_at": formatRenewAt(resp.RenewAt)})
}

// Renew extends the token. The result Terraform holds cannot change, so the token
// string must stay the same, which extension guarantees.
func (r *accessTokenEphemeralResource) Renew(ctx context.Context, req ephemeral.RenewRequest, resp *ephemeral.RenewResponse) {
	token, diags := accessTokenFromPrivate(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() || token == "" {
		return
	}
	tok, err := r.client.ExtendAccessToken(ctx, &client.AccessToken{Token: token})
	if err != nil {
		what := "Tools still using the token fail once it expires."
		if client.IsUnauthorized(err) {
			what = "The token has already expired or was removed (for example because the run was paused longer than " +
				"the token lifetime), and an expired token cannot be extended. Run Terraform again for a new token."
		}
		addClientError(&resp.Diagnostics, "Unable to renew access token",
			"Extending the platform access token of ephemeral mediaplatform_access_token failed. "+what, err)
		return
	}
	resp.RenewAt = accessTokenRenewAt(tok.ExpiresAt, time.Now())
	tflog.Debug(ctx, "Ephemeral platform access token extended", map[string]any{"renew_at": formatRenewAt(resp.RenewAt)})
}

// Close removes the token on the platform. A token that is already invalid counts
// as removed. Terraform does not promise Close when it is stopped or killed: the
// client's exit removes every token it handed out and was not asked to remove
// (token_ledger.go), so a token removed here is not removed twice.
func (r *accessTokenEphemeralResource) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	token, diags := accessTokenFromPrivate(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() || token == "" {
		return
	}
	if err := r.client.RemoveAccessToken(ctx, &client.AccessToken{Token: token}); err != nil {
		addClientError(&resp.Diagnostics, "Unable to remove access token",
			"Removing the platform access token of ephemeral mediaplatform_access_token failed. It stays valid until it "+
				"expires on its own, unless removed by other means.", err)
		return
	}
	tflog.Debug(ctx, "Ephemeral platform access token removed")
}

// accessTokenPrivate is the part of the framework's private data that Renew and
// Close read; an interface so that the function takes the framework's type without
// naming its internal package.
type accessTokenPrivate interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// accessTokenFromPrivate returns the token kept by Open, or "" when there is none.
func accessTokenFromPrivate(ctx context.Context, private accessTokenPrivate) (string, diag.Diagnostics) {
	if private == nil {
		return "", nil
	}
	raw, diags := private.GetKey(ctx, accessTokenPrivateKey)
	if diags.HasError() || len(raw) == 0 {
		return "", diags
	}
	var handle accessTokenHandle
	if err := json.Unmarshal(raw, &handle); err != nil {
		diags.AddError("Unable to read access token handle",
			"The private data of ephemeral mediaplatform_access_token holds no readable token handle. This is a bug in "+
				"the provider; please report it.\n\nCause: "+err.Error())
		return "", diags
	}
	return handle.Token, diags
}

// accessTokenRenewAt is when Terraform should extend a token expiring at expiresAt:
// when a third of its remaining lifetime is left, as the provider does for its own
// token. A token without a known expiry is never renewed.
func accessTokenRenewAt(expiresAt, now time.Time) time.Time {
	if expiresAt.IsZero() {
		return time.Time{}
	}
	left := expiresAt.Sub(now)
	if left <= 0 {
		return now
	}
	return expiresAt.Add(-left / 3)
}

func formatRenewAt(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}
