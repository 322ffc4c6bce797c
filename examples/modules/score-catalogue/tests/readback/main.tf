# Reads the catalogue back from the platform, for assertions in the tests.
terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}

variable "aliases" {
  type = set(string)
}

data "mediaplatform_score" "this" {
  for_each = var.aliases
  id       = each.value
}

data "mediaplatform_score_count" "all" {}

output "statuses" {
  value = { for alias, s in data.mediaplatform_score.this : alias => s.status }
}

output "total" {
  value = data.mediaplatform_score_count.all.total
}
