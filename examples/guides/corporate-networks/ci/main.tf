# The CI job's configuration: every provider setting comes from the job's
# environment (MEDIAPLATFORM_*), none is in the configuration, so the same files run
# on a laptop with other variables.
provider "mediaplatform" {}

variable "scores" {
  description = "The score files to publish, by alias."
  type        = map(string)
}

resource "mediaplatform_score" "catalogue" {
  for_each  = var.scores
  score_url = each.value
  score_id  = each.key
}
