# A score published elsewhere, by its alias (or its UUID).
data "mediaplatform_score" "symphony" {
  id = "beethoven-symphony-5"
}

output "symphony" {
  value = {
    uuid   = data.mediaplatform_score.symphony.uuid
    status = data.mediaplatform_score.symphony.status
    pages  = data.mediaplatform_score.symphony.page_count
  }
}
