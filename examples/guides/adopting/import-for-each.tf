data "mediaplatform_scores" "existing" {
  status = "idle"
}

locals {
  # Only the orchestra's scores: the aliases this configuration is to own.
  existing = {
    for s in data.mediaplatform_scores.existing.scores : s.id => s
    if startswith(coalesce(s.score_id, "-"), "orchestra-")
  }
}

import {
  for_each = local.existing
  to       = mediaplatform_score.adopted[each.key]
  id       = each.key
}

resource "mediaplatform_score" "adopted" {
  for_each  = local.existing
  score_url = each.value.score_url
  score_id  = each.value.score_id
  transpose = each.value.transpose
}
