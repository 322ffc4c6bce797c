package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ datasource.DataSource              = (*systemsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*systemsDataSource)(nil)
)

// NewSystemsDataSource returns the mediaplatform_systems data source.
func NewSystemsDataSource() datasource.DataSource {
	return &systemsDataSource{}
}

type systemsDataSource struct {
	client *client.Client
}

type systemsDataSourceModel struct {
	Systems []systemRefModel `tfsdk:"systems"`
}

// systemRefModel identifies one system.
type systemRefModel struct {
	SystemType string `tfsdk:"system_type"`
	SystemID   string `tfsdk:"system_id"`
}

func (d *systemsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_systems"
}

func (d *systemsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The systems whose data models the platform serves, as its service registry lists them. " +
			"Use an entry's `system_type` and `system_id` with `mediaplatform_system_model` and " +
			"`mediaplatform_asset_model`.",
		Attributes: map[string]schema.Attribute{
			"systems": schema.ListNestedAttribute{
				MarkdownDescription: "The systems, in the registry's order, each listed once.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"system_type": schema.StringAttribute{
						MarkdownDescription: "Kind of system, e.g. `interplay-pam` (production management) or " +
							"`interplay-mam` (asset management).",
						Computed: true,
					},
					"system_id": schema.StringAttribute{
						MarkdownDescription: "Id of the system, e.g. `pam-1`.",
						Computed:            true,
					},
				}},
			},
		},
	}
}

func (d *systemsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *systemsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	systems, err := d.client.Systems(ctx)
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to list systems",
			"Reading the platform's service registry (registry_url, else platform_url) failed.", err)
		return
	}
	data := systemsDataSourceModel{Systems: make([]systemRefModel, 0, len(systems))}
	for _, s := range systems {
		data.Systems = append(data.Systems, systemRefModel{SystemType: s.SystemType, SystemID: s.SystemID})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
