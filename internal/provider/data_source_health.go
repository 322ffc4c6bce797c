package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ datasource.DataSource              = (*healthDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*healthDataSource)(nil)
)

// NewHealthDataSource returns the mediaplatform_health data source.
func NewHealthDataSource() datasource.DataSource {
	return &healthDataSource{}
}

type healthDataSource struct {
	client *client.Client
}

type healthDataSourceModel struct {
	HealthStatus   types.String `tfsdk:"health_status"`
	HealthVerifier types.String `tfsdk:"health_verifier"`
	Healthy        types.Bool   `tfsdk:"healthy"`
}

func (d *healthDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_health"
}

func (d *healthDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The score publishing service's health report (`GET /core/health`), e.g. for a `check` block or a " +
			"precondition. The platform documents this call as not strictly part of its public API, so use it for " +
			"diagnostics rather than as a hard dependency. An unreachable service is an error, not `healthy = false`; an " +
			"answer in a form the provider cannot read gives `health_status = \"unknown\"` and a warning, never an error.",
		Attributes: map[string]schema.Attribute{
			"health_status": schema.StringAttribute{
				MarkdownDescription: "The service's health status as reported (`service.healthStatus`, or a status in another form of answer, " +
					"such as a plain-text `OK`), `ok` when healthy; `unknown` when the answer holds none.",
				Computed: true,
			},
			"health_verifier": schema.StringAttribute{
				MarkdownDescription: "Which verifier produced the report (`service.healthVerifier`), e.g. `default`.",
				Computed:            true,
			},
			"healthy": schema.BoolAttribute{
				MarkdownDescription: "Whether `health_status` is `ok` (in any case).",
				Computed:            true,
			},
		},
	}
}

func (d *healthDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *healthDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	h, err := d.client.Health(ctx)
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to read service health",
			"The publishing service's health report could not be read.", err)
		return
	}
	if h.Note != "" {
		// The call is not part of the public API: its answer's shape fails no plan.
		resp.Diagnostics.AddWarning("Service health unknown",
			"The publishing service answered its health check, but the answer holds no health status the provider can "+
				"read, so health_status is \"unknown\" and healthy is false. The platform documents the call as not part of "+
				"its public API; its answer may differ between platforms, or come from a proxy in front of it.\n\n"+h.Note)
	}
	data := healthDataSourceModel{
		HealthStatus:   types.StringValue(h.Status),
		HealthVerifier: types.StringValue(h.Verifier),
		Healthy:        types.BoolValue(h.Healthy),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
