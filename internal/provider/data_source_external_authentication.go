package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ datasource.DataSource              = (*externalAuthenticationDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*externalAuthenticationDataSource)(nil)
)

// NewExternalAuthenticationDataSource returns the mediaplatform_external_authentication data source.
func NewExternalAuthenticationDataSource() datasource.DataSource {
	return &externalAuthenticationDataSource{}
}

type externalAuthenticationDataSource struct {
	client *client.Client
}

type externalAuthenticationDataSourceModel struct {
	ID         types.String      `tfsdk:"id"`
	DomainName types.String      `tfsdk:"domain_name"`
	Enabled    types.Bool        `tfsdk:"enabled"`
	Servers    []authServerModel `tfsdk:"servers"`
}

func (d *externalAuthenticationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_external_authentication"
}

func (d *externalAuthenticationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The administrator API's current external authentication settings, whoever set them. Use it to " +
			"check or reuse settings that another configuration manages (to manage them, use the " +
			"`mediaplatform_external_authentication` resource). Needs `admin_url`, `admin_username` and `admin_password`, " +
			"and an administrator account.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Always `" + externalAuthenticationID + "`: the platform has exactly one set of these settings.",
				Computed:            true,
			},
			"domain_name": schema.StringAttribute{
				MarkdownDescription: "Domain of external authentication (`domainName`); empty before the settings were first stored.",
				Computed:            true,
			},
			"enabled": schema.BoolAttribute{
				MarkdownDescription: "Whether external authentication is switched on (`externalAuthenticationEnabled`).",
				Computed:            true,
			},
			"servers": schema.ListNestedAttribute{
				MarkdownDescription: "Authentication servers in the platform's order (the numbered sets `serverN`, `portN`, " +
					"`enabledN`); an empty list when none is stored. A slot the platform lists without an address is no server.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"address": schema.StringAttribute{
							MarkdownDescription: "Host name or IP address of the server (`serverN`), as the platform writes it: an " +
								"IPv6 address without brackets (`fd00::10`), also where the resource's configuration wrote `[fd00::10]`.",
							CustomType: equivalentType(hostClass),
							Computed:   true,
						},
						"port": schema.Int64Attribute{
							MarkdownDescription: "TCP port of the server (`portN`, 1 to 65535); 0 when the platform stores none.",
							Computed:            true,
						},
						"enabled": schema.BoolAttribute{
							MarkdownDescription: "Whether the server is used (`enabledN`). One the platform leaves out is read by what its " +
								"answer shows: `false` where it writes `true` ones (and so leaves out `false`), else `true`, " +
								"contract's default when `serverN` is given.",
							Computed: true,
						},
					},
				},
			},
		},
	}
}

func (d *externalAuthenticationDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *externalAuthenticationDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	settings, err := d.client.GetExternalAuthentication(ctx)
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to read external authentication settings",
			"The external authentication settings could not be read from the administrator API (admin_url).", err)
		return
	}
	data := externalAuthenticationDataSourceModel{
		ID:         types.StringValue(externalAuthenticationID),
		DomainName: types.StringValue(settings.DomainName),
		Enabled:    types.BoolValue(settings.Enabled),
		Servers:    authServers(settings.Servers),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
