# Every score whose rendering failed, however many there are (the data source follows
# the API's pages).
data "mediaplatform_scores" "failed" {
  status = "error"
}

# The first 20 scores published from one file, in publishing order.
data "mediaplatform_scores" "symphony_editions" {
  score_url   = "https://cdn.example/scores/beethoven/symphony-5.sib"
  max_results = 20
}

output "failed_score_urls" {
  value = [for s in data.mediaplatform_scores.failed.scores : s.score_url]
}

output "symphony_edition_ids" {
  value = [for s in data.mediaplatform_scores.symphony_editions.scores : s.id]
}
