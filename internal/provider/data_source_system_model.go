package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ datasource.DataSource              = (*systemModelDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*systemModelDataSource)(nil)
)

// NewSystemModelDataSource returns the mediaplatform_system_model data source.
func NewSystemModelDataSource() datasource.DataSource {
	return &systemModelDataSource{}
}

type systemModelDataSource struct {
	client *client.Client
}

type systemModelDataSourceModel struct {
	SystemType       types.String                             `tfsdk:"system_type"`
	SystemID         types.String                             `tfsdk:"system_id"`
	IncludeTimeBased types.Bool                               `tfsdk:"include_time_based"`
	Lang             types.String                             `tfsdk:"lang"`
	Base             *systemRefModel                          `tfsdk:"base"`
	Attributes       *attributeSetModel[systemAttributeModel] `tfsdk:"attributes"`
	AssetTypes       []assetTypeModel                         `tfsdk:"asset_types"`
	TimeBased        []layerModel[attributeCoreModel]         `tfsdk:"time_based"`
	JSON             types.String                             `tfsdk:"json"`
}

// assetTypeModel is an asset type of a system.
type assetTypeModel struct {
	ID     string            `tfsdk:"id"`
	Labels map[string]string `tfsdk:"labels"`
}

func (d *systemModelDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_system_model"
}

func (d *systemModelDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The data model of one system (`datamodel:system-model`): its common and custom " +
			"attributes, its asset types and, on request, its time-based annotation layers. The " +
			"`mediaplatform_systems` data source lists the systems. For the model of one asset or asset type, with " +
			"its layouts and the flags that hold for the calling user, use `mediaplatform_asset_model`.",
		Attributes: map[string]schema.Attribute{
			"system_type": systemTypeAttribute(),
			"system_id":   systemIDAttribute(),
			"include_time_based": schema.BoolAttribute{
				MarkdownDescription: "Whether to read the time-based annotation layers too (the platform's " +
					"`insist=time-based`). Default `false`. A system that does not support time-based metadata ignores it.",
				Optional: true,
				Computed: true,
			},
			"lang": modelLangAttribute(),
			"base": schema.SingleNestedAttribute{
				MarkdownDescription: "The system the model describes, as the platform reports it.",
				Computed:            true,
				Attributes: map[string]schema.Attribute{
					"system_type": schema.StringAttribute{
						MarkdownDescription: "Kind of system.",
						Computed:            true,
					},
					"system_id": schema.StringAttribute{
						MarkdownDescription: "Id of the system.",
						Computed:            true,
					},
				},
			},
			"attributes": attributeSetAttribute(systemAttribute,
				"The system's attribute descriptions: `common` and `custom`, each a list in the platform's order."),
			"asset_types": schema.ListNestedAttribute{
				MarkdownDescription: "The system's asset types (platform release 2020.4 and later; empty before), e.g. " +
					"`masterclip`, `sequence`, `subclip`.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id": schema.StringAttribute{
						MarkdownDescription: "Asset type id, as `asset_type` of `mediaplatform_asset_model` takes it.",
						Computed:            true,
					},
					"labels": schema.MapAttribute{
						MarkdownDescription: "Localized display labels: culture code to text. Empty when none.",
						ElementType:         types.StringType,
						Computed:            true,
					},
				}},
			},
			"time_based": schema.ListNestedAttribute{
				MarkdownDescription: "The time-based annotation layers (platform release 2022.3 and later). `null` unless " +
					"`include_time_based` is `true`; an empty list when it is and the system does not support " +
					"time-based metadata. Layer attributes carry no `applies_to`.",
				Computed:     true,
				NestedObject: layerObject(systemLayerAttribute),
			},
			"json": jsonAttribute("system model"),
		},
	}
}

func (d *systemModelDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *systemModelDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data systemModelDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	systemType, systemID := data.SystemType.ValueString(), data.SystemID.ValueString()
	includeTimeBased := data.IncludeTimeBased.ValueBool() // null is the default, false

	m, err := d.client.SystemModel(ctx, systemType, systemID, includeTimeBased, data.Lang.ValueString())
	if client.IsNotFound(err) {
		resp.Diagnostics.AddError("Unable to read system model",
			fmt.Sprintf("The platform has no system of type %q with id %q. Check system_type and system_id; the "+
				"mediaplatform_systems data source lists the systems the platform serves.\n\nCause: %s",
				systemType, systemID, err))
		return
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to read system model",
			fmt.Sprintf("Reading the data model of system %s/%s failed. Check the arguments and the provider settings, "+
				"and try again.", systemType, systemID), err)
		return
	}

	normalized, err := normalizeJSON(m.Raw)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read system model",
			fmt.Sprintf("The data model of system %s/%s is not valid JSON. This is a problem of the platform; please "+
				"report it.\n\nCause: %s", systemType, systemID, err))
		return
	}

	data.IncludeTimeBased = types.BoolValue(includeTimeBased)
	data.Base = &systemRefModel{SystemType: m.Base.SystemType, SystemID: m.Base.SystemID}
	data.Attributes = newAttributeSet(m.Attributes, newSystemAttribute)
	data.AssetTypes = convertAll(m.AssetTypes, func(t client.AssetType) assetTypeModel {
		return assetTypeModel{ID: t.ID, Labels: stringMap(t.Labels)}
	})
	data.TimeBased = nil // null unless requested
	if includeTimeBased {
		data.TimeBased = convertAll(m.TimeBased, newLayer(newAttributeCore))
	}
	data.JSON = normalized
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
