resource "mediaplatform_score" "symphony" {
  score_url = "https://cdn.example/scores/beethoven/symphony-5.sib"
}

# A printable view of the first twelve pages, in Canadian French, valid for 24 hours.
# Its viewer_url stays the same from run to run until a plan runs less than two
# hours before it expires: that plan replaces the view with a fresh one.
resource "mediaplatform_score_view" "rehearsal" {
  score          = mediaplatform_score.symphony.id
  printable      = true
  pages          = "1-12"
  lang           = "fr-CA"
  license_string = "Rehearsal copy - Orchestre de chambre"
  expires_in     = 86400
  renew_before   = "2h"
}

output "rehearsal_viewer_url" {
  value     = mediaplatform_score_view.rehearsal.viewer_url
  sensitive = true
}

output "rehearsal_expires_at" {
  value = mediaplatform_score_view.rehearsal.expires_at
}
