# The systems the service registry knows, for instance to read each one's model.
data "mediaplatform_systems" "all" {}

output "systems" {
  value = [for s in data.mediaplatform_systems.all.systems : "${s.system_type}/${s.system_id}"]
}
