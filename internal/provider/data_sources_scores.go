package provider

import "github.com/hashicorp/terraform-plugin-framework/datasource"

func scoreDataSources() []func() datasource.DataSource { return nil }
