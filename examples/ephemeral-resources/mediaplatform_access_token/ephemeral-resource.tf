# A platform access token of its own for other tools in this run: obtained with the
# provider's platform credentials when the run needs it, extended while it lasts and
# removed at the end. It is never written to the plan or the state. Requires
# Terraform 1.10+.
ephemeral "mediaplatform_access_token" "ci" {}

locals {
  # Ephemeral as well: usable in provider blocks (for example an HTTP provider's
  # request headers), other ephemeral resources and write-only arguments.
  platform_authorization = "${ephemeral.mediaplatform_access_token.ci.token_type} ${ephemeral.mediaplatform_access_token.ci.access_token}"
}
