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

# Every type the provider is designed to have (design §3), as "<kind> <name>". An
# example that uses one of these while this build of the provider lacks it is
# "pending" (see EXAMPLES_ALLOW_PENDING); a type not in this list that the provider
# lacks is always an error, so a misspelt name cannot hide.
designed_types=(
	"resource mediaplatform_external_authentication"
	"resource mediaplatform_score"
	"resource mediaplatform_score_view"
	"ephemeral mediaplatform_score_view"
	"ephemeral mediaplatform_access_token"
	"data mediaplatform_external_authentication"
	"data mediaplatform_score"
	"data mediaplatform_scores"
	"data mediaplatform_score_count"
	"data mediaplatform_health"
	"data mediaplatform_systems"
	"data mediaplatform_system_model"
	"data mediaplatform_asset_model"
	"data mediaplatform_command"
	"function localized_label"
	"function evaluate_expression"
)

# While the provider is being written, examples may use designed types it does not
# have yet: with EXAMPLES_ALLOW_PENDING=1 (the default for now) they are reported and
# skipped; with 0 they fail. Once every designed type exists this becomes 0.
EXAMPLES_ALLOW_PENDING=${EXAMPLES_ALLOW_PENDING:-0}

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

# missing_types FILE: prints, one "<kind> <name>" a line, the types that the
# diagnostics of `terraform validate -json` in FILE report as unknown to the provider.
missing_types() {
	sed -n \
		-e 's/.*"detail": "The provider [^ ]* does not support resource type \\"\([^\\]*\)\\".*/resource \1/p' \
		-e 's/.*"detail": "The provider [^ ]* does not support data source \\"\([^\\]*\)\\".*/data \1/p' \
		-e 's/.*"detail": "The provider [^ ]* does not support ephemeral resource \\"\([^\\]*\)\\".*/ephemeral \1/p' \
		-e 's/.*"detail": "The function \\"\([^\\]*\)\\" is not available from the provider \\"mediaplatform\\".*/function \1/p' \
		"$1"
}

# is_designed "KIND NAME": whether the type is in designed_types.
is_designed() {
	local t
	for t in "${designed_types[@]}"; do
		[[ $t == "$1" ]] && return 0
	done
	return 1
}

# check_config DIR: runs `terraform validate` in DIR and sets
#   check_status  "valid", "pending" (every error is a designed type the provider does
#                 not have yet, and EXAMPLES_ALLOW_PENDING=1) or "invalid"
#   check_pending the pending types, "<kind> <name>" a line (sorted, unique)
# Terraform's own report of an invalid configuration goes to stderr.
# shellcheck disable=SC2034 # check_status and check_pending are the results
check_config() {
	local dir=$1 out errors missing type
	out=$(mktemp)
	check_pending=""
	if terraform -chdir="$dir" validate -json -no-color >"$out" 2>&1; then
		check_status=valid
		rm -f "$out"
		return 0
	fi
	check_status=invalid
	errors=$(sed -n 's/^ *"error_count": \([0-9]*\).*/\1/p' "$out")
	missing=$(missing_types "$out")
	if [[ $EXAMPLES_ALLOW_PENDING == 1 && -n $missing && $(printf '%s\n' "$missing" | wc -l) -eq ${errors:-0} ]]; then
		check_status=pending
		while IFS= read -r type; do
			is_designed "$type" || check_status=invalid
		done <<<"$missing"
		check_pending=$(printf '%s\n' "$missing" | sort -u)
	fi
	rm -f "$out"
	if [[ $check_status == invalid ]]; then
		# Terraform's report, without the warning about dev_overrides.
		terraform -chdir="$dir" validate -no-color 2>&1 | sed -n '/^Error: /,$p' >&2 || true
	fi
}

# uses_type FILE "KIND NAME": whether the Terraform file declares a block of, or calls,
# the type.
uses_type() {
	local kind=${2%% *} name=${2#* }
	case $kind in
	function) grep -Eq "provider::mediaplatform::${name}[[:space:]]*\(" "$1" ;;
	*) grep -Eq "^[[:space:]]*${kind}[[:space:]]+\"${name}\"" "$1" ;;
	esac
}
