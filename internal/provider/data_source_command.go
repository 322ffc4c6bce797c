package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ datasource.DataSource                     = (*commandDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*commandDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*commandDataSource)(nil)
)

// NewCommandDataSource returns the mediaplatform_command data source.
func NewCommandDataSource() datasource.DataSource {
	return &commandDataSource{}
}

type commandDataSource struct {
	client *client.Client
}

// defaultCommandReadTimeout bounds a read of mediaplatform_command, waiting included.
const defaultCommandReadTimeout = 20 * time.Minute

type commandDataSourceModel struct {
	ID                types.String   `tfsdk:"id"`
	Href              types.String   `tfsdk:"href"`
	WaitForCompletion types.Bool     `tfsdk:"wait_for_completion"`
	FailOnError       types.Bool     `tfsdk:"fail_on_error"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`

	Version         types.String         `tfsdk:"version"`
	Type            types.String         `tfsdk:"type"`
	LifecycleState  types.String         `tfsdk:"lifecycle_state"`
	Progress        types.Int64          `tfsdk:"progress"`
	State           *commandStateModel   `tfsdk:"state"`
	Created         types.String         `tfsdk:"created"`
	Modified        types.String         `tfsdk:"modified"`
	Finished        types.String         `tfsdk:"finished"`
	Creator         types.String         `tfsdk:"creator"`
	Host            types.String         `tfsdk:"host"`
	ServiceName     types.String         `tfsdk:"service_name"`
	ServiceVersion  types.String         `tfsdk:"service_version"`
	ServiceInstance types.String         `tfsdk:"service_instance"`
	Error           *commandErrorModel   `tfsdk:"error"`
	ParametersJSON  types.String         `tfsdk:"parameters_json"`
	Results         []commandResultModel `tfsdk:"results"`
	TotalCount      types.Int64          `tfsdk:"total_count"`
	SuccessCount    types.Int64          `tfsdk:"success_count"`
	FailureCount    types.Int64          `tfsdk:"failure_count"`
	JSON            types.String         `tfsdk:"json"`
}

type commandStateModel struct {
	Text   types.String      `tfsdk:"text"`
	Code   types.String      `tfsdk:"code"`
	Params map[string]string `tfsdk:"params"`
}

type commandErrorModel struct {
	Cause    types.String      `tfsdk:"cause"`
	HTTPCode types.Int64       `tfsdk:"http_code"`
	Text     types.String      `tfsdk:"text"`
	Code     types.String      `tfsdk:"code"`
	Params   map[string]string `tfsdk:"params"`
}

type commandResultModel struct {
	Success      types.Bool   `tfsdk:"success"`
	Data         types.String `tfsdk:"data"`
	HTTPStatus   types.Int64  `tfsdk:"http_status"`
	ErrorCode    types.String `tfsdk:"error_code"`
	ErrorMessage types.String `tfsdk:"error_message"`
}

func (d *commandDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_command"
}

func (d *commandDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	paramsDescription := "Parameters of the localized message text. Values that are not strings are given as their " +
		"JSON text (`2`, `true`, `{\"a\":1}`)."
	resp.Schema = schema.Schema{
		MarkdownDescription: "A platform command (a long-running or bulk operation), found by its id or its address. With " +
			"`wait_for_completion` the read waits until the command has finished or failed, so a pipeline can gate on it; " +
			"with `fail_on_error` a failed command fails the plan or apply. A bulk command ends `finished` even when " +
			"entities failed: read `results` and `failure_count` for those.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The command's id, e.g. `c-7`. Exactly one of `id` and `href` is required; when `href` " +
					"is given, the id is read from the command.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"href": schema.StringAttribute{
				MarkdownDescription: "The command's address, e.g. a link found in another resource: absolute on the platform, " +
					"or relative to `platform_url`. It must address a command of the platform's command service (the address " +
					"the service registry gives for `command:command-by-id`); any other address is refused before it is read, " +
					"and an answer that is not a command resource is an error. The provider sends its access token only to " +
					"the platform's hosts. Exactly one of `id` and `href` is required; when `id` is given, this is the " +
					"command's `self` link.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"wait_for_completion": schema.BoolAttribute{
				MarkdownDescription: "Whether the read waits until the command's lifecycle is `finished` or `error`, polling with " +
					"backoff (100 ms up to 2 s) within `timeouts.read`; a `suspended` command is waited for until it resumes and " +
					"ends. When the timeout runs out first, the read fails. Default `false`: the command as it is now.",
				Optional: true,
			},
			"fail_on_error": schema.BoolAttribute{
				MarkdownDescription: "Whether a command in lifecycle `error` fails the read with its cause, code and text. " +
					"Default `false`: the failure is reported in `error`.",
				Optional: true,
			},
			"version": schema.StringAttribute{
				MarkdownDescription: "Version of the command structure (`version`), `1.0` at present.",
				Computed:            true,
			},
			"type": schema.StringAttribute{
				MarkdownDescription: "Command type name, e.g. `publishing:purge`; null when the platform reports none.",
				Computed:            true,
			},
			"lifecycle_state": schema.StringAttribute{
				MarkdownDescription: "The command's lifecycle (`command.lifecycle`; Terraform reserves the name `lifecycle`): " +
					"`pending`, `running`, `finished`, `error` or `suspended`.",
				Computed: true,
			},
			"progress": schema.Int64Attribute{
				MarkdownDescription: "Percentage done, 0 to 100; null when the platform reports none.",
				Computed:            true,
			},
			"state": schema.SingleNestedAttribute{
				MarkdownDescription: "The current execution step; null when the platform reports none.",
				Computed:            true,
				Attributes: map[string]schema.Attribute{
					"text": schema.StringAttribute{
						MarkdownDescription: "English text of the step.",
						Computed:            true,
					},
					"code": schema.StringAttribute{
						MarkdownDescription: "Message code of the step, shaped `<namespace>/<NAME>`.",
						Computed:            true,
					},
					"params": schema.MapAttribute{
						MarkdownDescription: paramsDescription + " Bulk commands carry `totalCount`, `successCount` and `failureCount` here.",
						ElementType:         types.StringType,
						Computed:            true,
					},
				},
			},
			"created": schema.StringAttribute{
				MarkdownDescription: "When the command was created (RFC 3339, UTC); null when not reported.",
				Computed:            true,
			},
			"modified": schema.StringAttribute{
				MarkdownDescription: "When the command last changed (RFC 3339, UTC); null when not reported.",
				Computed:            true,
			},
			"finished": schema.StringAttribute{
				MarkdownDescription: "When the command finished or failed (RFC 3339, UTC); null while it runs.",
				Computed:            true,
			},
			"creator": schema.StringAttribute{
				MarkdownDescription: "Account name of the user who started the command; null when not reported.",
				Computed:            true,
			},
			"host": schema.StringAttribute{
				MarkdownDescription: "Host name of the server running the handling service; null when not reported.",
				Computed:            true,
			},
			"service_name": schema.StringAttribute{
				MarkdownDescription: "Name of the handling service (`serviceName`); null when not reported.",
				Computed:            true,
			},
			"service_version": schema.StringAttribute{
				MarkdownDescription: "Version of the handling service (`serviceVersion`); null when not reported.",
				Computed:            true,
			},
			"service_instance": schema.StringAttribute{
				MarkdownDescription: "Instance id of the handling service (`serviceInstance`); null when not reported.",
				Computed:            true,
			},
			"error": schema.SingleNestedAttribute{
				MarkdownDescription: "Why the command failed; null unless `lifecycle_state` is `error`.",
				Computed:            true,
				Attributes: map[string]schema.Attribute{
					"cause": schema.StringAttribute{
						MarkdownDescription: "`runtimeError` (failed while running), `timeout`, `canceled` (by a caller, or by the " +
							"service after a restart) or `rejected` (refused by the service); null when not reported.",
						Computed: true,
					},
					"http_code": schema.Int64Attribute{
						MarkdownDescription: "HTTP status a synchronous call would have returned (`httpCode`); null when not reported.",
						Computed:            true,
					},
					"text": schema.StringAttribute{
						MarkdownDescription: "Human-readable error text.",
						Computed:            true,
					},
					"code": schema.StringAttribute{
						MarkdownDescription: "Message code of the error, shaped `<namespace>/<NAME>`.",
						Computed:            true,
					},
					"params": schema.MapAttribute{
						MarkdownDescription: paramsDescription,
						ElementType:         types.StringType,
						Computed:            true,
					},
				},
			},
			"parameters_json": schema.StringAttribute{
				MarkdownDescription: "The parameters the command was started with (`payload.command-parameters`) as normalized " +
					"JSON text (compact, keys sorted), for `jsondecode`; null when the platform reports none.",
				Computed: true,
			},
			"results": schema.ListNestedAttribute{
				MarkdownDescription: "For a bulk command, one entry per entity (`payload.result`), in the platform's order; " +
					"null for a command that is not a bulk command or has not finished.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"success": schema.BoolAttribute{
							MarkdownDescription: "Whether the action succeeded for this entity.",
							Computed:            true,
						},
						"data": schema.StringAttribute{
							MarkdownDescription: "Result data for the entity, e.g. its id; empty on failure.",
							Computed:            true,
						},
						"http_status": schema.Int64Attribute{
							MarkdownDescription: "On failure, the HTTP status a single call would have returned; null on success.",
							Computed:            true,
						},
						"error_code": schema.StringAttribute{
							MarkdownDescription: "On failure, the message code, e.g. `datamodel/THUMBNAIL_CHANGED`; null on success.",
							Computed:            true,
						},
						"error_message": schema.StringAttribute{
							MarkdownDescription: "On failure, the error text; null on success.",
							Computed:            true,
						},
					},
				},
			},
			"total_count": schema.Int64Attribute{
				MarkdownDescription: "For a bulk command, the number of entities (`state.params.totalCount`, or counted from " +
					"`results` when the platform does not say); null otherwise.",
				Computed: true,
			},
			"success_count": schema.Int64Attribute{
				MarkdownDescription: "For a bulk command, the number of entities that succeeded (`state.params.successCount`, " +
					"or counted from `results`); null otherwise.",
				Computed: true,
			},
			"failure_count": schema.Int64Attribute{
				MarkdownDescription: "For a bulk command, the number of entities that failed (`state.params.failureCount`, " +
					"or counted from `results`); null otherwise.",
				Computed: true,
			},
			"json": schema.StringAttribute{
				MarkdownDescription: "The whole command resource as the platform returned it, as normalized JSON text (compact, " +
					"keys sorted), including links, embedded resources and any field this schema does not model.",
				Computed: true,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
				ReadDescription: fmt.Sprintf("Time limit of the whole read, waiting included, as a duration such as `30s`, "+
					"`10m` or `1h`. Default `%s`.", shortDuration(defaultCommandReadTimeout)),
			}),
		},
	}
}

func (d *commandDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("href")),
	}
}

func (d *commandDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *commandDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data commandDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := data.Timeouts.Read(ctx, defaultCommandReadTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd, err := readCommand(ctx, d.client, data.ID, data.Href)
	if err != nil {
		addCommandReadError(ctx, &resp.Diagnostics, data, timeout, err)
		return
	}

	if data.WaitForCompletion.ValueBool() && !cmd.Command.Terminal() {
		done, err := d.client.WaitForCommand(ctx, cmd)
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			last := cmd
			if done != nil {
				last = done
			}
			resp.Diagnostics.AddError("Timed out waiting for command",
				fmt.Sprintf("Command %q%s was still in lifecycle %q%s when the read timeout of %s ran out. Raise timeouts.read, "+
					"or set wait_for_completion = false to read the command as it is.\n\nCause: %s",
					last.Command.ID, commandTypeSuffix(last), last.Command.Lifecycle, progressSuffix(last), shortDuration(timeout), err))
			return
		}
		if err != nil {
			addCommandReadError(ctx, &resp.Diagnostics, data, timeout, err)
			return
		}
		cmd = done
	}

	if data.FailOnError.ValueBool() && cmd.Command.Lifecycle == client.LifecycleError {
		resp.Diagnostics.AddError("Command failed", commandFailure(cmd))
		return
	}

	resp.Diagnostics.Append(data.refresh(cmd)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// addReadError reports a failed read of the command: missing, out of time, or any
// other failure.
func addCommandReadError(ctx context.Context, diags *diag.Diagnostics, data commandDataSourceModel, timeout time.Duration, err error) {
	name := data.name()
	switch {
	case client.IsNotFound(err):
		diags.AddError("Command not found",
			fmt.Sprintf("%s does not exist on the platform. Check the id or href; commands are found by the id the platform "+
				"gave them (e.g. c-7).\n\nCause: %s", name, err))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		diags.AddError("Timed out reading command",
			fmt.Sprintf("%s could not be read within the read timeout of %s. Raise timeouts.read.\n\nCause: %s",
				name, shortDuration(timeout), err))
	default:
		addClientError(diags, "Unable to read command", name+" could not be read. Check the id or href and the provider settings.", err)
	}
}

// name names the command as the configuration addresses it.
func (m commandDataSourceModel) name() string {
	return commandName(m.ID, m.Href)
}

// readCommand reads the command a configuration addresses by id, else by href (the
// data source mediaplatform_command and the action mediaplatform_cancel_command).
func readCommand(ctx context.Context, c *client.Client, id, href types.String) (*client.Command, error) {
	if !id.IsNull() {
		return c.GetCommand(ctx, id.ValueString())
	}
	return c.GetCommandByHref(ctx, href.ValueString())
}

// commandName names a command as the configuration addresses it.
func commandName(id, href types.String) string {
	if !id.IsNull() {
		return fmt.Sprintf("Command %q", id.ValueString())
	}
	return fmt.Sprintf("The command at %q", href.ValueString())
}

// refresh copies the command into the model. The id or href the configuration gave is
// kept; the other one is taken from the command.
func (m *commandDataSourceModel) refresh(cmd *client.Command) diag.Diagnostics {
	var diags diag.Diagnostics
	ci := cmd.Command
	if m.ID.IsNull() || m.ID.IsUnknown() {
		m.ID = types.StringValue(ci.ID)
	}
	if m.Href.IsNull() || m.Href.IsUnknown() {
		m.Href = types.StringNull()
		if self, ok := cmd.Links.First("self"); ok && self.Href != "" {
			m.Href = types.StringValue(self.Href)
		}
	}
	m.Version = optionalString(cmd.Version)
	m.Type = optionalString(ci.Type)
	m.LifecycleState = types.StringValue(ci.Lifecycle)
	m.Progress = types.Int64Null()
	if ci.Progress != nil {
		m.Progress = types.Int64Value(int64(*ci.Progress))
	}
	m.State = nil
	if ci.State != nil {
		m.State = &commandStateModel{
			Text:   types.StringValue(ci.State.Text),
			Code:   types.StringValue(ci.State.Code),
			Params: stringParams(ci.State.Params),
		}
	}
	m.Created, m.Modified, m.Finished = timeValue(ci.Created), timeValue(ci.Modified), timeValue(ci.Finished)
	m.Creator = optionalString(ci.Creator)
	m.Host = optionalString(ci.Host)
	m.ServiceName = optionalString(ci.ServiceName)
	m.ServiceVersion = optionalString(ci.ServiceVersion)
	m.ServiceInstance = optionalString(ci.ServiceInstance)
	m.Error = nil
	if e := ci.Error; e != nil {
		m.Error = &commandErrorModel{
			Cause:    optionalString(e.Cause),
			HTTPCode: optionalInt64(e.HTTPCode),
			Text:     types.StringValue(e.Text),
			Code:     types.StringValue(e.Code),
			Params:   stringParams(e.Params),
		}
	}

	m.ParametersJSON, m.Results = types.StringNull(), nil
	if cmd.Payload != nil {
		var err error
		if m.ParametersJSON, err = normalizeJSON(cmd.Payload.Parameters); err != nil {
			diags.AddError("Unable to read command", fmt.Sprintf("The parameters of command %q are not valid JSON: %s", ci.ID, err))
		}
		if cmd.Payload.Result != nil {
			m.Results = make([]commandResultModel, 0, len(cmd.Payload.Result))
			for _, r := range cmd.Payload.Result {
				m.Results = append(m.Results, commandResultModel{
					Success:      types.BoolValue(r.Success),
					Data:         types.StringValue(r.Data),
					HTTPStatus:   optionalInt64(r.HTTPStatus),
					ErrorCode:    optionalString(r.ErrorCode),
					ErrorMessage: optionalString(r.ErrorMessage),
				})
			}
		}
	}

	m.TotalCount, m.SuccessCount, m.FailureCount = types.Int64Null(), types.Int64Null(), types.Int64Null()
	if counts, ok := cmd.BulkCounts(); ok {
		m.TotalCount, m.SuccessCount, m.FailureCount =
			types.Int64Value(int64(counts.Total)), types.Int64Value(int64(counts.Success)), types.Int64Value(int64(counts.Failure))
	} else if m.Results != nil {
		succeeded := 0
		for _, r := range cmd.Payload.Result {
			if r.Success {
				succeeded++
			}
		}
		total := len(cmd.Payload.Result)
		m.TotalCount, m.SuccessCount, m.FailureCount =
			types.Int64Value(int64(total)), types.Int64Value(int64(succeeded)), types.Int64Value(int64(total-succeeded))
	}

	var err error
	if m.JSON, err = normalizeJSON(cmd.Raw); err != nil {
		diags.AddError("Unable to read command", fmt.Sprintf("The platform's answer for command %q is not valid JSON: %s", ci.ID, err))
	}
	return diags
}

// commandFailure describes a command in lifecycle error for a diagnostic.
func commandFailure(cmd *client.Command) string {
	ci := cmd.Command
	var b strings.Builder
	fmt.Fprintf(&b, "Command %q%s ended in lifecycle %q", ci.ID, commandTypeSuffix(cmd), ci.Lifecycle)
	if e := ci.Error; e != nil {
		if e.Cause != "" {
			fmt.Fprintf(&b, " with cause %s", e.Cause)
		}
		fmt.Fprintf(&b, ": %s: %s", e.Code, e.Text)
		if e.HTTPCode != 0 {
			fmt.Fprintf(&b, " (HTTP %d)", e.HTTPCode)
		}
	}
	b.WriteString(".\n\nFix the cause and start the command again, or set fail_on_error = false to read a failed command " +
		"without failing.")
	return b.String()
}

func commandTypeSuffix(cmd *client.Command) string {
	if cmd.Command.Type == "" {
		return ""
	}
	return fmt.Sprintf(" (type %s)", cmd.Command.Type)
}

func progressSuffix(cmd *client.Command) string {
	if cmd.Command.Progress == nil {
		return ""
	}
	return fmt.Sprintf(" at %d%% progress", *cmd.Command.Progress)
}

// optionalInt64 is null for 0, which the platform's optional integers never mean.
func optionalInt64(n int) types.Int64 {
	if n == 0 {
		return types.Int64Null()
	}
	return types.Int64Value(int64(n))
}

// shortDuration formats a duration without zero units: 20m rather than 20m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
