# The health of the score publishing service.
data "mediaplatform_health" "publishing" {}

check "publishing_health" {
  assert {
    condition     = data.mediaplatform_health.publishing.healthy
    error_message = "The publishing service reports ${data.mediaplatform_health.publishing.health_status} (verifier ${data.mediaplatform_health.publishing.health_verifier})."
  }
}
