# The aggregated data model of a production management system, with its time-based
# layers, labelled in French where the platform has French labels.
data "mediaplatform_system_model" "pam" {
  system_type        = "interplay-pam"
  system_id          = "pam-1"
  include_time_based = true
  lang               = "fr"
}

output "asset_types" {
  value = [for t in data.mediaplatform_system_model.pam.asset_types : t.id]
}

output "layers" {
  value = [for l in data.mediaplatform_system_model.pam.time_based : l.id]
}

# Custom attributes by label, with the platform's fallback rule for labels.
output "custom_attributes" {
  value = {
    for a in data.mediaplatform_system_model.pam.attributes.custom :
    provider::mediaplatform::localized_label(a.labels, "fr-CA", a.id) => a.type.base_type
  }
}
