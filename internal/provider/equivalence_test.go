package provider

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// writtenStrings walks a resource schema and returns every string attribute a user
// writes (required or optional, nested ones included) by its path, with its custom
// type if it has one.
func writtenStrings(prefix string, attrs map[string]schema.Attribute, out map[string]basetypes.StringTypable) {
	for name, a := range attrs {
		path := prefix + "." + name
		switch a := a.(type) {
		case schema.StringAttribute:
			if a.Required || a.Optional {
				out[path] = a.CustomType
			}
		case schema.ListNestedAttribute:
			writtenStrings(path, a.NestedObject.Attributes, out)
		case schema.SetNestedAttribute:
			writtenStrings(path, a.NestedObject.Attributes, out)
		case schema.SingleNestedAttribute:
			writtenStrings(path, a.Attributes, out)
		case schema.MapNestedAttribute:
			writtenStrings(path, a.NestedObject.Attributes, out)
		}
	}
}

// resourceWrittenStrings is writtenStrings for every resource the provider serves.
func resourceWrittenStrings(t *testing.T) map[string]basetypes.StringTypable {
	t.Helper()
	ctx := context.Background()
	p := New("test")()
	out := map[string]basetypes.StringTypable{}
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "mediaplatform"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		writtenStrings(meta.TypeName, resp.Schema.Attributes, out)
	}
	return out
}

// TestEveryWrittenAttributeHasAClass: every string attribute a user writes in a
// resource is compared by an equivalence class (a custom type with semantic
// equality) or is listed as exact with its reason; and every exact entry names such
// an attribute, without a class. An attribute added without either fails here.
func TestEveryWrittenAttributeHasAClass(t *testing.T) {
	t.Parallel()
	written := resourceWrittenStrings(t)
	for _, path := range slices.Sorted(maps.Keys(written)) {
		typ := written[path]
		_, exact := exactAttributes[path]
		classed := false
		if typ != nil {
			_, classed = typ.ValueType(context.Background()).(basetypes.StringValuableWithSemanticEquals)
		}
		switch {
		case classed && exact:
			t.Errorf("%s has a class and is listed as exact", path)
		case !classed && !exact:
			t.Errorf("%s is written by users and has no equivalence class: give it a custom type with semantic equality "+
				"(equivalence.go), or list it in exactAttributes with the reason", path)
		}
	}
	for path := range exactAttributes {
		if _, ok := written[path]; !ok {
			t.Errorf("exactAttributes lists %s, which no resource has users write", path)
		}
	}
}
