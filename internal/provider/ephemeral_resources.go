package provider

import "github.com/hashicorp/terraform-plugin-framework/ephemeral"

func ephemeralResources() []func() ephemeral.EphemeralResource { return nil }
