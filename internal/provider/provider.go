// Package provider implements the mediaplatform Terraform provider.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

var _ provider.Provider = (*mediaplatformProvider)(nil)

// New returns a constructor for the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &mediaplatformProvider{version: version}
	}
}

type mediaplatformProvider struct {
	version string
}

func (p *mediaplatformProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "mediaplatform"
	resp.Version = p.version
}

func (p *mediaplatformProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages the media platform's administrator settings, scores and views, and reads its commands and data models.",
	}
}

func (p *mediaplatformProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *mediaplatformProvider) Resources(context.Context) []func() resource.Resource {
	return nil
}

func (p *mediaplatformProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}
