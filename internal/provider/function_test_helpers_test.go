package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

var _ provider.ProviderWithFunctions = (*functionsOnlyProvider)(nil)

// functionsOnlyProvider serves only the provider-defined functions, with no
// configuration, so the function tests need neither an emulator nor the full
// provider.
type functionsOnlyProvider struct{}

func (p *functionsOnlyProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "mediaplatform"
}

func (p *functionsOnlyProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {
}

func (p *functionsOnlyProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *functionsOnlyProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}

func (p *functionsOnlyProvider) Resources(context.Context) []func() resource.Resource { return nil }

func (p *functionsOnlyProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		NewLocalizedLabelFunction,
		NewEvaluateExpressionFunction,
	}
}

// functionsOnlyProviderFactories serves functionsOnlyProvider to resource.UnitTest.
var functionsOnlyProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"mediaplatform": providerserver.NewProtocol6WithError(&functionsOnlyProvider{}),
}
