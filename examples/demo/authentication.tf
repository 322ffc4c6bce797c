# The platform's single set of external authentication settings. Creating the
# resource adopts the settings the platform has; destroying it switches external
# authentication off again (deletion_policy "disable", the default).
resource "mediaplatform_external_authentication" "corp" {
  domain_name = "CORP"
  enabled     = true

  servers = [
    { address = "dc1.corp.example", port = 636 },
    { address = "dc2.corp.example", port = 389, enabled = false },
  ]
}

output "external_authentication" {
  description = "The settings as the platform stores them."
  value = {
    domain  = mediaplatform_external_authentication.corp.domain_name
    enabled = mediaplatform_external_authentication.corp.enabled
    servers = [
      for s in mediaplatform_external_authentication.corp.servers :
      "${s.address}:${s.port}${s.enabled ? "" : " (disabled)"}"
    ]
  }
}
