# A fresh view for this run only: Terraform opens it when the run needs it, and its
# viewer_url is never written to the plan or the state. Requires Terraform 1.10+.
ephemeral "mediaplatform_score_view" "preview" {
  score      = "beethoven-symphony-5" # the score's UUID or alias
  pages      = "1-2"
  lang       = "en"
  expires_in = 900
}

locals {
  # Ephemeral as well: usable in provider blocks, other ephemeral resources and
  # write-only arguments, for example to hand the link to a notification tool.
  preview_url = ephemeral.mediaplatform_score_view.preview.viewer_url
}
