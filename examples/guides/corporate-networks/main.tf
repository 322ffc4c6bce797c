# Behind a zero-trust gateway: the platform's addresses are the gateway's; the
# platform credentials come from the MEDIAPLATFORM_* environment variables; the
# gateway's client certificate and access headers from files and variables that a
# secret store fills.

variable "gateway" {
  description = "The gateway's address (scheme, host and port): every request to the platform goes to it."
  type        = string
  default     = "https://mediaplatform-gw.corp.example"
}

variable "ca_cert_file" {
  description = "The private authority that signed the gateway's TLS certificate (PEM)."
  type        = string
}

variable "client_cert_file" {
  description = "The client certificate the gateway expects (PEM)."
  type        = string
}

variable "client_key_file" {
  description = "Its private key (PEM)."
  type        = string
}

variable "access_client_id" {
  description = "The gateway's service token: its id."
  type        = string
}

variable "access_client_secret" {
  description = "The gateway's service token: its secret."
  type        = string
  sensitive   = true
}

variable "scores" {
  description = "The score files to publish, by alias."
  type        = map(string)
}

provider "mediaplatform" {
  # The gateway's addresses, not those of the platform behind it: the provider talks
  # only to what these name, and presents the certificate and headers only there.
  admin_url      = "${var.gateway}/api/v1"
  platform_url   = var.gateway
  publishing_url = "${var.gateway}/api/v1/apis/media.publishing;version=2;realm=global"

  ca_cert_pem     = file(var.ca_cert_file)
  client_cert_pem = file(var.client_cert_file)
  client_key_pem  = file(var.client_key_file)
  request_headers = {
    "CF-Access-Client-Id"     = var.access_client_id
    "CF-Access-Client-Secret" = var.access_client_secret
  }
}

# An alias (score_id) per score: an apply that was killed before it saved its state
# meets the scores it published under their aliases, instead of publishing them again.
resource "mediaplatform_score" "catalogue" {
  for_each  = var.scores
  score_url = each.value
  score_id  = each.key
}
