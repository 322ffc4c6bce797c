# The data models of the emulator's systems, read with the provider functions.

data "mediaplatform_systems" "all" {}

# The production management system's model, with its time-based layers, and the
# model of one of its clips.
data "mediaplatform_system_model" "pam" {
  system_type        = "interplay-pam"
  system_id          = "pam-1"
  include_time_based = true
}

data "mediaplatform_asset_model" "clip" {
  system_type = "interplay-pam"
  system_id   = "pam-1"
  asset_id    = "clip-1"
}

locals {
  pam_attributes = concat(
    data.mediaplatform_system_model.pam.attributes.common,
    data.mediaplatform_system_model.pam.attributes.custom,
  )

  # Every attribute's label for var.culture, with the platform's fallback rule:
  # fr-CA, then fr, then en, then the attribute id.
  labels = {
    for a in local.pam_attributes :
    a.id => provider::mediaplatform::localized_label(a.labels, var.culture, a.id)
  }

  # The clip's "production" form (an attribute group of its layout) and the values
  # of a clip that is scheduled for broadcast.
  production_items = one([
    for g in data.mediaplatform_asset_model.clip.layout.attribute_groups : g.items if g.id == "production"
  ])
  scheduled_clip = {
    status    = "scheduled"
    assetType = "masterclip"
    category  = "sports"
  }

  # The rules of a field that has none: always shown, never read-only.
  always = jsonencode({ and = [] })
  never  = jsonencode({ or = [] })
}

output "systems" {
  value = [for s in data.mediaplatform_systems.all.systems : "${s.system_type}/${s.system_id}"]
}

output "pam_layers" {
  description = "The time-based layers of pam-1 (include_time_based)."
  value       = [for l in data.mediaplatform_system_model.pam.time_based : l.id]
}

output "pam_custom_attribute_labels" {
  description = "Custom attributes of pam-1, labelled for var.culture."
  value = {
    for a in data.mediaplatform_system_model.pam.attributes.custom : a.id => local.labels[a.id]
  }
}

output "production_form_for_a_scheduled_clip" {
  description = "Each field of the clip's production form, evaluated with the layout's rules for a scheduled clip."
  value = {
    for item in local.production_items :
    lookup(local.labels, item.id, item.id) => join(", ", [
      provider::mediaplatform::evaluate_expression(
        coalesce(try(item.options.visibility_expression_rule, null), local.always), local.scheduled_clip,
      ) ? "shown" : "hidden",
      provider::mediaplatform::evaluate_expression(
        coalesce(try(item.options.read_only_expression_rule, null), local.never), local.scheduled_clip,
      ) ? "read-only" : "editable",
    ])
  }
}
