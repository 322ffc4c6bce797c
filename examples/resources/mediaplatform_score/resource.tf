# A score with an alias: other configurations and tools can address it as
# "beethoven-symphony-5" instead of its UUID.
resource "mediaplatform_score" "symphony" {
  score_url = "https://cdn.example/scores/beethoven/symphony-5.sib"
  score_id  = "beethoven-symphony-5"
}

# A transposed edition of the same file, whose renderings are purged when it is
# destroyed. Rendering large scores takes a while: allow for it.
resource "mediaplatform_score" "symphony_transposed" {
  score_url        = "https://cdn.example/scores/beethoven/symphony-5.sib"
  transpose        = true
  purge_on_destroy = true

  timeouts {
    create = "30m"
  }
}

output "symphony" {
  value = {
    id     = mediaplatform_score.symphony.id
    status = mediaplatform_score.symphony.status
    pages  = mediaplatform_score.symphony.page_count
  }
}
