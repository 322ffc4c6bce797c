package provider

import "github.com/hashicorp/terraform-plugin-framework/datasource"

func modelDataSources() []func() datasource.DataSource { return nil }
