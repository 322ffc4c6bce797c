#!/usr/bin/env bash
# Check the path to the platform before Terraform takes it: the same gateway address,
# CA, client certificate, key and access headers, through the same proxy. An answer in
# JSON (the platform's token service, with "_links") means the path works; anything
# else is what answered instead: the proxy (407: its login; 403: its policy), the
# gateway (an HTML 401 or 403 page: the headers or the certificate), or TLS (curl
# names the certificate it could not verify).
set -euo pipefail

curl --silent --show-error --fail-with-body \
	--proxy "${HTTPS_PROXY:-}" \
	--cacert "$CA_CERT_FILE" --cert "$CLIENT_CERT_FILE" --key "$CLIENT_KEY_FILE" \
	-H "CF-Access-Client-Id: $ACCESS_CLIENT_ID" -H "CF-Access-Client-Secret: $ACCESS_CLIENT_SECRET" \
	"$GATEWAY/auth"
echo
