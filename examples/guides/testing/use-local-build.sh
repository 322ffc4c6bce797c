#!/usr/bin/env bash
# Until the provider is in a registry: builds it (and the emulator) from a clone into a
# local filesystem mirror, and writes a CLI configuration that installs it from there,
# as `terraform init` would from the registry. terraform test needs init (it installs
# the test files' helper modules), which dev_overrides alone does not allow.
#
#   use-local-build.sh CLONE DIR   then:   export TF_CLI_CONFIG_FILE=DIR/terraform.rc PATH=DIR/bin:$PATH
set -euo pipefail
clone=$(cd "$1" && pwd)
mkdir -p "$2"
dir=$(cd "$2" && pwd)

# The short source mediaplatform/mediaplatform names registry.terraform.io to Terraform
# and registry.opentofu.org to OpenTofu: the mirror holds the build under both.
platform="$(go env GOOS)_$(go env GOARCH)"
mirror="$dir/mirror/registry.terraform.io/mediaplatform/mediaplatform/0.0.1/$platform"
tofu_mirror="$dir/mirror/registry.opentofu.org/mediaplatform/mediaplatform/0.0.1/$platform"
mkdir -p "$mirror" "$tofu_mirror" "$dir/bin"
(cd "$clone" && go build -o "$mirror/terraform-provider-mediaplatform_v0.0.1" . &&
	go build -o "$dir/bin/mediaplatform-emulator" ./cmd/mediaplatform-emulator)
cp "$mirror/terraform-provider-mediaplatform_v0.0.1" "$tofu_mirror/"

cat >"$dir/terraform.rc" <<EOF_RC
provider_installation {
  filesystem_mirror {
    path    = "$dir/mirror"
    include = ["mediaplatform/mediaplatform"]
  }
  direct {
    exclude = ["mediaplatform/mediaplatform"]
  }
}
EOF_RC
echo "built into $dir: export TF_CLI_CONFIG_FILE=$dir/terraform.rc PATH=$dir/bin:\$PATH"
