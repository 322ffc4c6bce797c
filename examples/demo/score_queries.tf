# Reading the publishing service. The data sources depend on the scores they look
# for, so that they are read after those exist.

data "mediaplatform_health" "publishing" {}

# The symphony again, found by its alias.
data "mediaplatform_score" "by_alias" {
  id = mediaplatform_score.symphony.score_id
}

# Both editions of the sonata: every score published from its file.
data "mediaplatform_scores" "sonata_editions" {
  score_url  = mediaplatform_score.sonata.score_url
  depends_on = [mediaplatform_score.sonata_transposed]
}

# How many scores are rendered and ready.
data "mediaplatform_score_count" "rendered" {
  status = "idle"
  depends_on = [
    mediaplatform_score.symphony,
    mediaplatform_score.sonata,
    mediaplatform_score.sonata_transposed,
  ]
}

output "publishing_service" {
  value = {
    healthy         = data.mediaplatform_health.publishing.healthy
    health_status   = data.mediaplatform_health.publishing.health_status
    rendered_scores = data.mediaplatform_score_count.rendered.total
  }
}

output "symphony_by_alias" {
  value = "${data.mediaplatform_score.by_alias.score_id} is ${data.mediaplatform_score.by_alias.uuid}, ${data.mediaplatform_score.by_alias.page_count} pages"
}

output "sonata_editions" {
  value = {
    for s in data.mediaplatform_scores.sonata_editions.scores :
    s.id => s.transpose ? "transposed" : "as written"
  }
}
