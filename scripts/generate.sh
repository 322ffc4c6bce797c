#!/usr/bin/env bash
#
# Formats examples/ and writes docs/ with tfplugindocs from templates/, examples/ and
# the schema's descriptions, asking Terraform for the schema: $DOCS_TERRAFORM when
# set, else terraform on PATH. A Terraform older than 1.14 does not report list
# resources, actions and resource identities; the pages that show them are then kept
# as they are, with a warning naming them, instead of being deleted or cut short.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_cmd go
cd "$repo_root"
work=$(mktemp -d "${TMPDIR:-/tmp}/mediaplatform-generate.XXXXXX")
trap 'rm -rf "$work"' EXIT
use_docs_terraform "$work/bin"

terraform fmt -recursive examples

# tfplugindocs runs on a copy of the sources, so that an older Terraform's copy of
# the examples can leave out what its schema cannot render.
src=$work/src
mkdir -p "$src"
cp go.mod go.sum ./*.go "$src"/
cp -R internal templates "$src"/
[[ -d docs ]] && cp -R docs "$src"/
if [[ $docs_tf_complete == 0 ]]; then
	older_examples examples "$src/examples"
else
	cp -R examples "$src"/
fi
go tool -modfile=tools/go.mod tfplugindocs generate --provider-dir "$src" \
	--provider-name mediaplatform --rendered-provider-name "Media Platform"

kept=()
if [[ $docs_tf_complete == 0 && -d docs ]]; then
	mapfile -t kept < <(newer_docs_pages docs)
	for page in "${kept[@]}"; do
		mkdir -p "$src/docs/$(dirname "$page")"
		cp "docs/$page" "$src/docs/$page"
	done
fi
rm -rf docs
cp -R "$src/docs" docs
if [[ ${#kept[@]} -gt 0 ]]; then
	printf 'WARNING: Terraform %s does not report list resources, actions and resource identities (%s and later does); these pages were kept as they were, not regenerated:\n' \
		"$docs_tf_version" "$newer_docs_version" >&2
	printf '  docs/%s\n' "${kept[@]}" >&2
	printf 'Set DOCS_TERRAFORM to a newer terraform binary to regenerate them.\n' >&2
fi
