# The model of one asset, with the flags that apply to the calling user.
data "mediaplatform_asset_model" "clip" {
  system_type = "interplay-pam"
  system_id   = "pam-1"
  asset_id    = "clip-1"
}

# The model of an asset type instead of a single asset.
data "mediaplatform_asset_model" "sequence" {
  system_type = "interplay-pam"
  system_id   = "pam-1"
  asset_type  = "sequence"
  lang        = "de"
}

# The clip's form: each attribute group with the attributes it shows, and the rule
# (JSON text, for provider::mediaplatform::evaluate_expression) that hides a field.
output "clip_form" {
  value = {
    for g in data.mediaplatform_asset_model.clip.layout.attribute_groups :
    g.id => {
      for item in g.items : item.id => try(item.options.visibility_expression_rule, null)
    }
  }
}

# The whole response is in json, for anything the schema does not model.
output "clip_model_keys" {
  value = keys(jsondecode(data.mediaplatform_asset_model.clip.json))
}

output "sequence_layers" {
  value = [for l in data.mediaplatform_asset_model.sequence.time_based : l.id]
}
