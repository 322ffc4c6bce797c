#!/usr/bin/env bash
# Changes the external authentication settings outside Terraform, as an operator in
# the platform's console would: logs in to the administrator API and switches
# external authentication off. Reads MEDIAPLATFORM_ADMIN_URL, _ADMIN_USERNAME and
# _ADMIN_PASSWORD.
set -euo pipefail

token=$(curl --silent --show-error --fail \
	--data-urlencode "user=$MEDIAPLATFORM_ADMIN_USERNAME" \
	--data-urlencode "pass=$MEDIAPLATFORM_ADMIN_PASSWORD" \
	--data-urlencode "r=createsession" \
	"$MEDIAPLATFORM_ADMIN_URL/login" | sed -n 's/.*"token" *: *"\([^"]*\)".*/\1/p')

curl --silent --show-error --fail -X PUT -H "token: $token" -H 'Content-Type: application/json' \
	--data '{"domainName": "CORP", "externalAuthenticationEnabled": false,
	         "server0": "dc1.corp.example", "port0": "636", "enabled0": true}' \
	"$MEDIAPLATFORM_ADMIN_URL/externalauth" >/dev/null

curl --silent --show-error --fail -H "token: $token" "$MEDIAPLATFORM_ADMIN_URL/logout" >/dev/null
echo "external authentication switched off, dc2 removed, outside Terraform"
