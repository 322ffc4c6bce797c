# A score catalogue: one published score and one viewer link per entry of a map.
terraform {
  required_version = ">= 1.7"
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}

variable "scores" {
  description = "The catalogue: alias => score file address and options."
  type = map(object({
    url       = string
    transpose = optional(bool, false)
  }))

  validation {
    condition     = alltrue([for alias, s in var.scores : can(regex("^https://", s.url))])
    error_message = "Every score url must be an https:// address."
  }
  validation {
    condition     = alltrue([for alias, s in var.scores : can(regex("^[A-Za-z0-9._-]{1,128}$", alias))])
    error_message = "Every alias must be 1 to 128 letters, digits, dots, underscores or hyphens."
  }
}

variable "view_expires_in" {
  description = "Lifetime of each viewer link, in seconds."
  type        = number
  default     = 3600
}

resource "mediaplatform_score" "this" {
  for_each  = var.scores
  score_url = each.value.url
  score_id  = each.key
  transpose = each.value.transpose
}

resource "mediaplatform_score_view" "this" {
  for_each   = mediaplatform_score.this
  score      = each.value.id
  expires_in = var.view_expires_in
}

output "score_ids" {
  description = "alias => UUID of each published score."
  value       = { for alias, s in mediaplatform_score.this : alias => s.id }
}

output "page_counts" {
  description = "alias => rendered page count."
  value       = { for alias, s in mediaplatform_score.this : alias => s.page_count }
}

output "viewer_urls" {
  description = "alias => viewer link (a bearer secret)."
  value       = { for alias, v in mediaplatform_score_view.this : alias => v.viewer_url }
  sensitive   = true
}
