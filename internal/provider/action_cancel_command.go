package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ action.Action                     = (*cancelCommandAction)(nil)
	_ action.ActionWithConfigure        = (*cancelCommandAction)(nil)
	_ action.ActionWithConfigValidators = (*cancelCommandAction)(nil)
)

// NewCancelCommandAction returns the action mediaplatform_cancel_command
// (Terraform 1.14 and later).
func NewCancelCommandAction() action.Action {
	return &cancelCommandAction{}
}

type cancelCommandAction struct {
	client *client.Client
}

type cancelCommandModel struct {
	ID   types.String `tfsdk:"id"`
	Href types.String `tfsdk:"href"`
}

func (a *cancelCommandAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cancel_command"
}

func (a *cancelCommandAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Cancels a running platform command (a long-running or bulk operation), found by its id or " +
			"its address, through the command's own `command:cancel` link: `terraform apply -invoke=action.mediaplatform_cancel_command.NAME` " +
			"(Terraform 1.14 and later). The command then ends in lifecycle `error` with cause `canceled`. A command that is " +
			"already canceled counts as done; one that has already finished or failed otherwise cannot be canceled, and the " +
			"action fails saying how it ended.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The command's id, e.g. `c-7`. Exactly one of `id` and `href` is required.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"href": schema.StringAttribute{
				MarkdownDescription: "The command's address, absolute on the platform or relative to `platform_url`; it must " +
					"address a command of the platform's command service, as for the data source `mediaplatform_command`. " +
					"Exactly one of `id` and `href` is required.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

func (a *cancelCommandAction) ConfigValidators(context.Context) []action.ConfigValidator {
	return []action.ConfigValidator{actionvalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("href"))}
}

func (a *cancelCommandAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (a *cancelCommandAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var data cancelCommandModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := commandName(data.ID, data.Href)
	cmd, err := readCommand(ctx, a.client, data.ID, data.Href)
	switch {
	case client.IsNotFound(err):
		resp.Diagnostics.AddError("Command not found", fmt.Sprintf("%s does not exist on the platform: nothing to cancel. "+
			"Check the id or href.\n\nCause: %s", name, err))
		return
	case err != nil:
		addClientError(&resp.Diagnostics, "Unable to cancel command", name+" could not be read.", err)
		return
	}
	progress(resp, fmt.Sprintf("Command %s%s is %s%s; canceling it.", cmd.Command.ID, commandTypeSuffix(cmd),
		cmd.Command.Lifecycle, progressSuffix(cmd)))
	if ended(cmd, &resp.Diagnostics) {
		return
	}
	canceled, err := a.client.CancelCommand(ctx, cmd)
	if client.IsForbidden(err) {
		// It ended between the read and the cancel: say how.
		if now, rerr := a.client.GetCommand(ctx, cmd.Command.ID); rerr == nil && ended(now, &resp.Diagnostics) {
			return
		}
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to cancel command",
			fmt.Sprintf("Canceling command %s%s failed; it may still be running.", cmd.Command.ID, commandTypeSuffix(cmd)), err)
		return
	}
	progress(resp, fmt.Sprintf("Command %s canceled: lifecycle %s%s.", canceled.Command.ID, canceled.Command.Lifecycle,
		causeSuffix(canceled)))
}

// ended reports whether cmd has already ended, with an error diagnostic unless it
// ended canceled (the outcome asked for).
func ended(cmd *client.Command, diags *diag.Diagnostics) bool {
	if !cmd.Command.Terminal() {
		return false
	}
	if e := cmd.Command.Error; e != nil && e.Cause == client.CauseCanceled {
		return true
	}
	diags.AddError("Command already ended",
		fmt.Sprintf("Command %s%s has already ended in lifecycle %q%s, so it cannot be canceled. Nothing was changed.",
			cmd.Command.ID, commandTypeSuffix(cmd), cmd.Command.Lifecycle, causeSuffix(cmd)))
	return true
}

func causeSuffix(cmd *client.Command) string {
	if e := cmd.Command.Error; e != nil && e.Cause != "" {
		return " (cause " + e.Cause + ")"
	}
	return ""
}

// progress reports a step of the action to Terraform, which prints it.
func progress(resp *action.InvokeResponse, message string) {
	if resp.SendProgress != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: message})
	}
}
