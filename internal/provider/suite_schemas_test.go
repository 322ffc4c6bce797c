package provider

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestSchemas walks the provider's whole GetProviderSchema answer, as Terraform
// receives it: the provider, the resources, data sources, ephemeral resources, list
// resources and actions (nested attributes and blocks included) and the functions
// (their parameters). The framework finds no fault in any schema; every type, every
// attribute and every parameter is described for the generated documentation; and
// exactly the secrets are Sensitive.
func TestSchemas(t *testing.T) {
	t.Parallel()
	resp, err := providerserver.NewProtocol6(New("test")())().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	wantSensitive := []string{
		"provider.admin_password", "provider.basic_token", "provider.client_key_pem", "provider.client_secret", "provider.password",
		"provider.request_headers",
		"resource mediaplatform_score_view.viewer_url",
		"ephemeral mediaplatform_access_token.access_token", "ephemeral mediaplatform_score_view.viewer_url",
	}
	var sensitive []string
	var walk func(where string, block *tfprotov6.SchemaBlock)
	walkAttributes := func(where string, attrs []*tfprotov6.SchemaAttribute) {
		for _, a := range attrs {
			path := where + "." + a.Name
			if a.Description == "" {
				t.Errorf("%s has no description", path)
			}
			if a.Sensitive {
				sensitive = append(sensitive, path)
			}
			if a.NestedType != nil {
				walk(path, &tfprotov6.SchemaBlock{Attributes: a.NestedType.Attributes})
			}
		}
	}
	walk = func(where string, block *tfprotov6.SchemaBlock) {
		walkAttributes(where, block.Attributes)
		for _, b := range block.BlockTypes {
			walk(where+"."+b.TypeName, b.Block)
		}
	}
	typed := func(kind string, schemas map[string]*tfprotov6.Schema) {
		if len(schemas) == 0 {
			t.Errorf("the provider serves no %s", kind)
		}
		for _, name := range slices.Sorted(maps.Keys(schemas)) {
			if schemas[name].Block.Description == "" {
				t.Errorf("%s %s has no description", kind, name)
			}
			walk(kind+" "+name, schemas[name].Block)
		}
	}
	walk("provider", resp.Provider.Block)
	typed("resource", resp.ResourceSchemas)
	typed("data", resp.DataSourceSchemas)
	typed("ephemeral", resp.EphemeralResourceSchemas)
	typed("list", resp.ListResourceSchemas)
	actions := map[string]*tfprotov6.Schema{}
	for name, a := range resp.ActionSchemas {
		actions[name] = a.Schema
	}
	typed("action", actions)
	if len(resp.Functions) == 0 {
		t.Error("the provider serves no functions")
	}
	for name, f := range resp.Functions {
		if f.Summary == "" || f.Description == "" {
			t.Errorf("function %s has no summary or description", name)
		}
		for _, p := range f.Parameters {
			if p.Description == "" {
				t.Errorf("function %s: parameter %s has no description", name, p.Name)
			}
		}
	}
	slices.Sort(sensitive)
	slices.Sort(wantSensitive)
	if !slices.Equal(sensitive, wantSensitive) {
		t.Errorf("sensitive attributes:\n  %s\nwant exactly the secrets:\n  %s", strings.Join(sensitive, "\n  "), strings.Join(wantSensitive, "\n  "))
	}
}
