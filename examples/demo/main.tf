# A tour of the provider against the emulator: `make demo` (scripts/demo.sh) starts
# an emulator, applies this configuration, plans again and destroys. To run it by
# hand, start the emulator and export the MEDIAPLATFORM_* variables as the README
# shows ("The emulator on its own").
#
# Each file is one topic and holds its own outputs:
#   authentication.tf  the administrator API's external authentication settings
#   scores.tf          three published scores and a time-limited view
#   score_queries.tf   health, a score by alias, a list and a count of scores
#   models.tf          the systems, a system model and an asset model, read with
#                      the provider functions localized_label and evaluate_expression
#   command.tf         a long-running platform command, waited for

terraform {
  # Provider functions need Terraform 1.8, ephemeral resources 1.10.
  required_version = ">= 1.10"

  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}

# Everything comes from the environment: MEDIAPLATFORM_ADMIN_URL,
# MEDIAPLATFORM_ADMIN_USERNAME, MEDIAPLATFORM_ADMIN_PASSWORD,
# MEDIAPLATFORM_PLATFORM_URL, MEDIAPLATFORM_CLIENT_ID, MEDIAPLATFORM_CLIENT_SECRET,
# MEDIAPLATFORM_USERNAME, MEDIAPLATFORM_PASSWORD and MEDIAPLATFORM_PUBLISHING_URL.
provider "mediaplatform" {}

variable "culture" {
  type        = string
  description = "Culture code (BCP 47) for views and labels."
  default     = "fr-CA"
}
