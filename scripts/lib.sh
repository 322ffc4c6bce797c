# shellcheck shell=bash
#
# Helpers shared by the scripts in this directory (sourced, not run): a run's
# temporary directory and the emulator stopped at its end, building the provider, a
# dev_overrides CLI configuration in a temporary directory, and the check of example
# configurations against the provider's schema.
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

# start_run NAME: makes the run's temporary directory, $work, and sets the traps that
# end a run that starts an emulator the same way whatever happens: the emulator
# ($emulator_pid, once the caller sets it) stopped, on failure the last lines of its
# log ($emulator_log, once set) shown, $work removed, and the run's status kept; Ctrl-C
# and TERM end the run with status 130 the same way.
start_run() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/mediaplatform-$1.XXXXXX")
	emulator_pid=""
	emulator_log=""
	trap end_run EXIT
	trap 'exit 130' INT TERM
}

# end_run: the EXIT trap of start_run.
end_run() {
	local status=$?
	if [[ -n $emulator_pid ]] && kill -0 "$emulator_pid" 2>/dev/null; then
		kill -TERM "$emulator_pid" 2>/dev/null || true
		wait "$emulator_pid" 2>/dev/null || true
	fi
	if ((status != 0)) && [[ -n $emulator_log && -s $emulator_log ]]; then
		printf '\nlast lines of the emulator log:\n' >&2
		tail -n 20 "$emulator_log" >&2
	fi
	rm -rf "$work"
	exit "$status"
}

# clear_provider_settings: unsets every MEDIAPLATFORM_* variable, so that only the
# settings the caller then exports reach the provider.
clear_provider_settings() {
	local v
	for v in "${!MEDIAPLATFORM_@}"; do
		unset "$v"
	done
}

# build_provider DIR: builds the provider binary into DIR, under the name Terraform
# looks for in a dev_overrides directory.
build_provider() {
	(cd "$repo_root" && go build -trimpath -o "$1/terraform-provider-mediaplatform" .)
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

# The documentation pages that only Terraform 1.14 and later can generate: it is the
# first version whose `terraform providers schema -json` reports list resources and
# actions (and, since 1.12, resource identities).
newer_docs_version=1.14.0

# newer_docs_pages DOCS: lists, relative to the directory DOCS, the pages an older
# Terraform cannot generate: list resources, actions, and resources with an identity.
newer_docs_pages() {
	(
		cd "$1" || exit 0
		find list-resources actions -name '*.md' 2>/dev/null
		grep -l '^### Identity Schema' resources/*.md 2>/dev/null
	) | sort
}

# use_docs_terraform DIR: puts the Terraform CLI that tfplugindocs is to run first on
# PATH, through a link in DIR: $DOCS_TERRAFORM when set, else terraform on PATH. Sets
# docs_tf_version to its version and docs_tf_complete to 1 when it reports every
# schema the documentation needs, else 0.
use_docs_terraform() {
	local bin=${DOCS_TERRAFORM:-$(command -v terraform)}
	[[ -x $bin ]] || die "no Terraform CLI for the documentation: set DOCS_TERRAFORM or put terraform on PATH"
	mkdir -p "$1"
	ln -sf "$bin" "$1/terraform"
	export PATH="$1:$PATH"
	docs_tf_version=$("$bin" version -json 2>/dev/null | sed -n 's/.*"terraform_version": *"\([^"]*\)".*/\1/p')
	docs_tf_complete=0
	if version_at_least "$docs_tf_version" "$newer_docs_version"; then
		docs_tf_complete=1
	fi
}

# strip_identity_parts PAGE: removes from a resource page the parts that only a
# Terraform reporting resource identities (1.12 and later) generates: the import by
# identity and the identity schema, from "In Terraform v1.12.0 and later" up to the
# next import paragraph. What is left is what an older Terraform generates.
strip_identity_parts() {
	awk '
		/^In Terraform v1\.12\.0 and later, the \[`import` block\]/ { skipping = 1; next }
		skipping && /^(In Terraform v1\.5\.0 and later|The \[`terraform import` command\])/ { skipping = 0 }
		!skipping { print }
	' "$1" >"$1.stripped" && mv "$1.stripped" "$1"
}

# version_at_least HAVE WANT: succeeds when version HAVE (x.y.z) is WANT or later.
version_at_least() {
	[[ $(printf '%s\n%s\n' "$2" "${1%%-*}" | sort -V | head -n 1) == "$2" ]]
}

# older_examples SRC DST: copies the examples in SRC to DST without those an older
# Terraform's schema cannot render (identity imports: tfplugindocs refuses them for a
# resource whose identity it was not told of).
older_examples() {
	cp -R "$1" "$2"
	find "$2" -name 'import-by-identity.tf' -delete
}
