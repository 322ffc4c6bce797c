variable "score_base_url" {
  type        = string
  description = "Where the score files are published from."
  default     = "https://cdn.example/scores/demo"
}

# Three published scores. The emulator renders each in a moment; the apply waits for
# it (wait_for_rendering defaults to true).
resource "mediaplatform_score" "symphony" {
  score_url        = "${var.score_base_url}/beethoven-symphony-5.sib"
  score_id         = "beethoven-symphony-5" # an alias: address it without its UUID
  purge_on_destroy = true
}

resource "mediaplatform_score" "sonata" {
  score_url        = "${var.score_base_url}/moonlight-sonata.sib"
  purge_on_destroy = true
}

resource "mediaplatform_score" "sonata_transposed" {
  score_url        = mediaplatform_score.sonata.score_url
  transpose        = true
  purge_on_destroy = true
}

# A printable view of the symphony's first pages, kept across runs until it comes
# within renew_before of its expiry.
resource "mediaplatform_score_view" "rehearsal" {
  score        = mediaplatform_score.symphony.id
  printable    = true
  pages        = "1-3"
  lang         = var.culture
  expires_in   = 7200
  renew_before = "30m"
}

output "scores" {
  description = "The published scores by name."
  value = {
    for name, s in {
      symphony          = mediaplatform_score.symphony
      sonata            = mediaplatform_score.sonata
      sonata_transposed = mediaplatform_score.sonata_transposed
    } :
    name => {
      id         = s.id
      alias      = s.score_id == null ? "(none)" : s.score_id
      status     = s.status
      page_count = s.page_count
      transpose  = s.transpose
    }
  }
}

output "rehearsal_view" {
  description = "The view's settings and lifetime."
  value = {
    score      = mediaplatform_score_view.rehearsal.score
    pages      = mediaplatform_score_view.rehearsal.pages
    lang       = mediaplatform_score_view.rehearsal.lang
    expires_at = mediaplatform_score_view.rehearsal.expires_at
  }
}

output "rehearsal_viewer_url" {
  description = "Whoever has this address can open the view: `terraform output -raw rehearsal_viewer_url`."
  value       = mediaplatform_score_view.rehearsal.viewer_url
  sensitive   = true
}
