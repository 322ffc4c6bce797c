# shellcheck shell=bash
#
# Helpers shared by the scripts in this directory (sourced, not run): building the
# provider, a dev_overrides CLI configuration in a temporary directory, and the check
# of example configurations against the provider's schema.
#
# Nothing here touches ~/.terraformrc: the CLI configuration lives in the caller's
# temporary directory and only this process tree sees it, through TF_CLI_CONFIG_FILE.

export CHECKPOINT_DISABLE=1

# The repository root, whatever the caller's working directory.
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

note() {
	printf '==> %s\n' "$*"
}

# need_cmd CMD...: fails unless every command is on PATH.
need_cmd() {
	local cmd
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 || die "$cmd is needed and is not on PATH"
	done
}

# build_provider DIR: builds the provider binary into DIR, under the name Terraform
# looks for in a dev_overrides directory.
build_provider() {
	(cd "$repo_root" && go build -o "$1/terraform-provider-mediaplatform" .)
}

# use_dev_overrides BINDIR FILE: writes a CLI configuration that takes
# mediaplatform/mediaplatform from BINDIR (no registry, no terraform init) and
# exports TF_CLI_CONFIG_FILE pointing at it.
use_dev_overrides() {
	cat >"$2" <<EOF
provider_installation {
  dev_overrides {
    "mediaplatform/mediaplatform" = "$1"
  }
  direct {}
}
EOF
	export TF_CLI_CONFIG_FILE="$2"
}

# copy_config SRC DST: copies the Terraform files of the configuration in SRC to the
# new directory DST, adding the required_providers block that a documentation example
# leaves out (without it Terraform would look for hashicorp/mediaplatform).
copy_config() {
	mkdir -p "$2"
	cp "$1"/*.tf "$2"/
	if ! grep -q 'required_providers' "$2"/*.tf; then
		cat >"$2/zz_required_providers.tf" <<'EOF'
terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
EOF
	fi
}

# check_config DIR: runs `terraform validate` in DIR and succeeds when the
# configuration is valid. Otherwise Terraform's report goes to stderr.
check_config() {
	local out
	if out=$(terraform -chdir="$1" validate -no-color 2>&1); then
		return 0
	fi
	# Terraform's report, without the warning about dev_overrides.
	printf '%s\n' "$out" | sed -n '/^Error: /,$p' >&2
	return 1
}
