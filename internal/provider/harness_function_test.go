package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
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

// functionsOnlyProviderFactories serves functionsOnlyProvider to resource.UnitTest,
// behind the protocol wrapper the provider binary serves (OpenTofu's null arguments).
var functionsOnlyProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"mediaplatform": func() (tfprotov6.ProviderServer, error) {
		server, err := providerserver.NewProtocol6WithError(&functionsOnlyProvider{})()
		if err != nil {
			return nil, err
		}
		return wrapServer(server)
	},
}

// testFunctions runs steps against functionsOnlyProvider, on Terraform 1.8 and later
// (the first with provider-defined functions).
func testFunctions(t *testing.T, steps ...tfresource.TestStep) {
	t.Helper()
	tfresource.UnitTest(t, tfresource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: functionsOnlyProviderFactories,
		Steps:                    steps,
	})
}

// functionOutput is one output of a function test: its name, its value expression
// and the value it must have after apply.
type functionOutput struct {
	name, value string
	want        knownvalue.Check
}

// functionOutputsStep is a step whose configuration is prelude (locals, resources)
// followed by an output block per output, and which checks each output's value.
func functionOutputsStep(prelude string, outputs ...functionOutput) tfresource.TestStep {
	var config strings.Builder
	config.WriteString(prelude)
	checks := make([]statecheck.StateCheck, 0, len(outputs))
	for _, o := range outputs {
		fmt.Fprintf(&config, "output %q {\n  value = %s\n}\n", o.name, o.value)
		checks = append(checks, statecheck.ExpectKnownOutputValue(o.name, o.want))
	}
	return tfresource.TestStep{Config: config.String(), ConfigStateChecks: checks}
}
