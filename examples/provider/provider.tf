terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}

# Every argument can come from its MEDIAPLATFORM_* environment variable instead
# (MEDIAPLATFORM_ADMIN_PASSWORD for admin_password, and so on); a value set here wins.
# Keep the secrets out of the configuration: in the environment of the run, or in
# sensitive variables filled from a secret store.
provider "mediaplatform" {
  # Administrator API: the external authentication settings.
  admin_url      = "https://media.corp.example/api/v1"
  admin_username = "terraform"
  admin_password = var.admin_password

  # Platform: token flow, scores and views, commands, data models. The application
  # credential and the platform user log in with the OAuth password grant.
  platform_url  = "https://media.corp.example"
  client_id     = "terraform"
  client_secret = var.client_secret
  username      = "terraform-ci"
  password      = var.platform_password

  # The score publishing API, here derived from admin_url as
  # {admin_url}/apis/media.publishing;version=2;realm=global.
  publishing_service = "media.publishing"
}

variable "admin_password" {
  type      = string
  sensitive = true
}

variable "client_secret" {
  type      = string
  sensitive = true
}

variable "platform_password" {
  type      = string
  sensitive = true
}
