#!/usr/bin/env bash
# A CI job behind the gateway and a forward proxy, with every provider setting in the
# environment. The job's secret store provides the files (CA_CERT_FILE,
# CLIENT_CERT_FILE, CLIENT_KEY_FILE), MEDIAPLATFORM_REQUEST_HEADERS (a JSON object of
# strings), the MEDIAPLATFORM_* credentials and the proxy's login (PROXY_USER,
# PROXY_PASSWORD); GATEWAY and PROXY are the job's settings.
set -euo pipefail

# The platform's addresses are the gateway's.
export MEDIAPLATFORM_ADMIN_URL="$GATEWAY/api/v1"
export MEDIAPLATFORM_PLATFORM_URL="$GATEWAY"
export MEDIAPLATFORM_PUBLISHING_URL="$GATEWAY/api/v1/apis/media.publishing;version=2;realm=global"

# The PEM text itself, not the file names.
MEDIAPLATFORM_CA_CERT_PEM="$(cat "$CA_CERT_FILE")"
MEDIAPLATFORM_CLIENT_CERT_PEM="$(cat "$CLIENT_CERT_FILE")"
MEDIAPLATFORM_CLIENT_KEY_PEM="$(cat "$CLIENT_KEY_FILE")"
export MEDIAPLATFORM_CA_CERT_PEM MEDIAPLATFORM_CLIENT_CERT_PEM MEDIAPLATFORM_CLIENT_KEY_PEM

# The proxy's login goes in its address, percent-encoded (an @ in the password is %40).
encode() { jq -rn --arg v "$1" '$v | @uri'; }
HTTPS_PROXY="http://$(encode "$PROXY_USER"):$(encode "$PROXY_PASSWORD")@$PROXY"
export HTTPS_PROXY
# Terraform itself also goes through HTTPS_PROXY (the registry, its version check):
# the check is not needed in CI.
export CHECKPOINT_DISABLE=1

# exec: the runner's stop reaches ci-apply.sh, copied beside this script from
# examples/guides/running-in-ci/ (see the guide "Running in CI").
exec bash "$(dirname "$0")/ci-apply.sh"
