terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}

# The addresses and credentials come from the MEDIAPLATFORM_* environment variables.
provider "mediaplatform" {}

resource "mediaplatform_external_authentication" "corp" {
  domain_name = "CORP"
  enabled     = true
  servers = [
    { address = "dc1.corp.example", port = 636 },
    { address = "dc2.corp.example", port = 636 },
  ]
}

# Checked on every plan and apply, also when nothing else changes: a warning names
# the drift even in a plan that only refreshes.
check "external_authentication_is_on" {
  data "mediaplatform_external_authentication" "live" {}

  assert {
    condition     = data.mediaplatform_external_authentication.live.enabled
    error_message = "External authentication is switched off on the platform: logins through CORP fail until it is on again."
  }
}
