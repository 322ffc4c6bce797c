# The settings as the platform has them now, whoever manages them.
data "mediaplatform_external_authentication" "current" {}

output "external_authentication_enabled" {
  value = data.mediaplatform_external_authentication.current.enabled
}

output "authentication_servers" {
  value = [
    for s in data.mediaplatform_external_authentication.current.servers :
    "${s.address}:${s.port}" if s.enabled
  ]
}
