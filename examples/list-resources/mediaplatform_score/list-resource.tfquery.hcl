# Every score whose alias starts with "orchestra-", for `terraform query`
# (Terraform 1.14 and later). Terraform stops a list at 100 results unless a
# limit says otherwise.
list "mediaplatform_score" "orchestra" {
  provider = mediaplatform
  limit    = 1000

  config {
    alias_prefix = "orchestra-"
  }
}

# The scores whose rendering failed, with their whole resource data.
list "mediaplatform_score" "failed" {
  provider         = mediaplatform
  include_resource = true

  config {
    status = "error"
  }
}
