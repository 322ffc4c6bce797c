package provider

import "github.com/hashicorp/terraform-plugin-framework/types"

// Conversions shared by resources and data sources.

// optionalString is null for the empty string, which the client uses for "missing".
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
