package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ datasource.DataSource              = (*scoreCountDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*scoreCountDataSource)(nil)
)

// NewScoreCountDataSource returns the mediaplatform_score_count data source.
func NewScoreCountDataSource() datasource.DataSource {
	return &scoreCountDataSource{}
}

type scoreCountDataSource struct {
	client *client.Client
}

type scoreCountDataSourceModel struct {
	scoreFilterModel
	Offset types.Int64 `tfsdk:"offset"`
	Limit  types.Int64 `tfsdk:"limit"`
	Total  types.Int64 `tfsdk:"total"`
}

func (d *scoreCountDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_score_count"
}

func (d *scoreCountDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The number of published scores matching the filters, counted by the platform in one request " +
			"(`POST /scores/count`) without listing them.",
		Attributes: withScoreFilters(map[string]schema.Attribute{
			"offset": schema.Int64Attribute{
				MarkdownDescription: "Where counting begins: the number of matching scores, in the platform's list order, that are not counted; " +
					"0 or more. Default `0`.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"limit": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Most scores to count, 1 to %d (the platform's bound); `total` never exceeds it. "+
					"Default: no bound.", client.MaxListLimit),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, client.MaxListLimit)},
			},
			"total": schema.Int64Attribute{
				MarkdownDescription: "The number of matching scores from `offset` on, at most `limit` (the API's `count`; " +
					"Terraform reserves the name `count`).",
				Computed: true,
			},
		}, scoreFilter.dataSourceAttribute),
	}
}

func (d *scoreCountDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *scoreCountDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data scoreCountDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	n, err := d.client.CountScores(ctx, client.CountScoresInput{
		Criteria: data.criteria(),
		Offset:   int(data.Offset.ValueInt64()),
		Limit:    int(data.Limit.ValueInt64()),
	})
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to count scores",
			"Counting the scores failed. Check the filters and the provider settings, and try again.", err)
		return
	}
	data.Total = types.Int64Value(int64(n))
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}
