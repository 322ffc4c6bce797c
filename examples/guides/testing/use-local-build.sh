#!/usr/bin/env bash
# Until the provider is in a registry: builds it (and the emulator) from a clone into a
# local filesystem mirror, and writes a CLI configuration that installs it from there,
# as `terraform init` would from the registry. terraform test needs init (it installs
# the test files' helper modules), which dev_overrides alone does not allow.
#
#   use-local-build.sh CLONE DIR [VERSION]   then:   export TF_CLI_CONFIG_FILE=DIR/terraform.rc PATH=DIR/bin:$PATH
#
# The build is installed as VERSION, by default the newest version CHANGELOG.md names
# (its first "## x.y.z" heading), so `version = "= x.y.z"` in required_providers pins
# it. Another VERSION into the same DIR is installed beside the ones already there.
set -euo pipefail
clone=$(cd "$1" && pwd)
mkdir -p "$2"
dir=$(cd "$2" && pwd)
version=${3:-$(sed -nE '/^## [0-9]+\.[0-9]+\.[0-9]+/{s/^## ([0-9.]+).*/\1/p;q;}' "$clone/CHANGELOG.md")}
if [[ ! $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "use-local-build.sh: no version to install (\"$version\"): give one (1.2.3) or a CHANGELOG.md with a \"## 1.2.3\" heading" >&2
	exit 2
fi

# The short source mediaplatform/mediaplatform names registry.terraform.io to Terraform
# and registry.opentofu.org to OpenTofu: the mirror holds the build under both.
platform="$(go env GOOS)_$(go env GOARCH)"
binary="terraform-provider-mediaplatform_v$version"
mirror="$dir/mirror/registry.terraform.io/mediaplatform/mediaplatform/$version/$platform"
tofu_mirror="$dir/mirror/registry.opentofu.org/mediaplatform/mediaplatform/$version/$platform"
mkdir -p "$mirror" "$tofu_mirror" "$dir/bin"
# As the release build: -trimpath, and the version the provider sends in its User-Agent.
(cd "$clone" && go build -trimpath -ldflags "-X main.version=$version" -o "$mirror/$binary" . &&
	go build -trimpath -o "$dir/bin/mediaplatform-emulator" ./cmd/mediaplatform-emulator)
cp "$mirror/$binary" "$tofu_mirror/"

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
echo "built $version into $dir: export TF_CLI_CONFIG_FILE=$dir/terraform.rc PATH=$dir/bin:\$PATH"
