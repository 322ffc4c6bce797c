# The platform has one set of external authentication settings: declare it once.
resource "mediaplatform_external_authentication" "this" {
  domain_name = "CORP"
  enabled     = true

  # Tried in this order. Servers not listed here are removed from the platform.
  servers = [
    { address = "dc1.corp.example", port = 636 },
    { address = "dc2.corp.example", port = 636 },
    { address = "ldap-legacy.corp.example", port = 389, enabled = false },
  ]

  # Destroying switches external authentication off ("disable", the default);
  # "retain" leaves the platform as it is and only forgets the settings.
  deletion_policy = "disable"
}
