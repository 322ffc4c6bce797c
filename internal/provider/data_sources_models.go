package provider

import "github.com/hashicorp/terraform-plugin-framework/datasource"

// modelDataSources are the data sources over the registry and the data models.
func modelDataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewSystemsDataSource,
		NewSystemModelDataSource,
		NewAssetModelDataSource,
	}
}
