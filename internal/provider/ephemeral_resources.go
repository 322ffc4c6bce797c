package provider

import "github.com/hashicorp/terraform-plugin-framework/ephemeral"

// ephemeralResources are the provider's ephemeral resources (Terraform >= 1.10).
func ephemeralResources() []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewScoreViewEphemeralResource,
		NewAccessTokenEphemeralResource,
	}
}
