package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// What the provider tells the user when a call fails: the diagnostic of a client
// error, its first sentence chosen by the error's cause, and the log fields that
// name the object a call serves.

// logResource adds the id of the object a call serves to the log lines of ctx, the
// client's included (the SDK adds tf_resource_type and tf_rpc), so that one resource
// can be followed through a TF_LOG=DEBUG run.
func logResource(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return tflog.SetField(ctx, "resource_id", id)
}

// addClientError adds err as an error diagnostic. Its first sentence is chosen by
// the error's cause (causeLead): the setting that actually failed and what to do.
// detail says which object and operation failed; the platform's own words follow
// as "Error:". An error of no known cause leads with detail.
func addClientError(diags *diag.Diagnostics, summary, detail string, err error) {
	if lead := causeLead(err); lead != "" {
		diags.AddError(summary, lead+"\n\n"+detail+"\n\nError: "+err.Error())
		return
	}
	diags.AddError(summary, detail+"\n\nError: "+err.Error())
}

// causeLead classifies a client error once, by cause, and returns the sentence a
// diagnostic leads with, or "" for an error of no known cause (e.g. a rejected
// argument, whose platform message says it all).
func causeLead(err error) string {
	var missing *client.MissingSettingError
	var oauthErr *client.OAuthError
	var addrErr *client.AddressError
	var netErr *client.NetworkError
	var rateErr *client.RetryAfterError
	var apiErr *client.APIError
	switch {
	case errors.As(err, &netErr) && !client.IsUnknownOutcome(err):
		return networkLead(netErr)
	case errors.As(err, &addrErr):
		return fmt.Sprintf("The provider setting %s does not address the platform's API: the platform answered 404 "+
			"for a path it always serves, so the address is wrong (a typo, or a gateway without the route). Nothing was changed "+
			"and nothing was removed from the state. Correct %s and run again.", addrErr.Setting, addrErr.Setting)
	case errors.As(err, &missing):
		msg := fmt.Sprintf("The provider setting %q is needed here and is not set. Set it in the provider configuration or in the "+
			"environment variable %s", missing.Setting, missing.EnvVar)
		if missing.Alternative != "" {
			msg += ", " + missing.Alternative
		}
		return msg + ". A value that the configuration only knows after apply counts as unset during plan."
	case errors.As(err, &oauthErr):
		return "The platform login (the password grant for the platform user `username`) was refused. " +
			"Check username, password and the application credential (client_id/client_secret or basic_token)."
	case errors.As(err, &rateErr):
		return fmt.Sprintf("The platform is limiting the request rate (HTTP %d) and asked for a longer wait than the provider "+
			"spends on retries. Nothing was changed by this request. Run again later, or with a lower -parallelism.", rateErr.Status)
	case !errors.As(err, &apiErr):
		return ""
	case client.IsAdminLoginRefused(err):
		return "The administrator API login (admin_username/admin_password at admin_url) was refused. " +
			"Check admin_username and admin_password."
	case apiErr.Status == http.StatusUnauthorized && apiErr.Namespace() == "admin":
		return "The administrator API did not accept the session of admin_username, even after a fresh login. " +
			"Check admin_username and admin_password, and that admin_url addresses the administrator API."
	case apiErr.Status == http.StatusUnauthorized:
		return "The platform did not accept the access token of the platform user `username`, even after a fresh login. " +
			"Check username, password and the application credential (client_id/client_secret or basic_token)."
	case apiErr.Status == http.StatusForbidden && apiErr.Namespace() == "admin":
		return "The administrator API refused admin_username: it is logged in but not an administrator. " +
			"Set admin_username and admin_password to an account with administrator rights."
	case apiErr.Status == http.StatusForbidden:
		return "The platform refused the operation (HTTP 403): the credentials are valid but not allowed to do this."
	case apiErr.Status == http.StatusTooManyRequests:
		return "The platform is limiting the request rate (HTTP 429) beyond the provider's retry budget. " +
			"Nothing was changed by this request. Run again later, or with a lower -parallelism."
	case apiErr.Status >= 500:
		return fmt.Sprintf("The platform failed with HTTP %d, a fault on its side rather than in the configuration; the "+
			"provider retried where that is safe. Run again later; if it persists, ask the platform's operators.", apiErr.Status)
	}
	return ""
}

// networkLead is the first sentence of a diagnostic for a request that got no answer:
// what happened, at which address setting, and what to check.
func networkLead(e *client.NetworkError) string {
	setting := e.Setting
	if setting == "" {
		setting = "the platform's address"
	}
	switch e.Kind {
	case client.NetworkRefused:
		return fmt.Sprintf("Nothing accepts connections at %s (from %s): check %s and that the platform is running there.",
			e.Host, setting, setting)
	case client.NetworkDNS:
		return fmt.Sprintf("The host name in %s (%s) does not resolve: check %s and the DNS of this machine.", setting, e.Host, setting)
	case client.NetworkTimeout:
		return fmt.Sprintf("Nothing answered at %s (from %s) within %s × %d attempt(s): check %s and the network path to it, "+
			"or raise request_timeout for a slow platform.", e.Host, setting, e.Timeout, max(e.Attempts, 1), setting)
	case client.NetworkTLS:
		return fmt.Sprintf("The TLS certificate of %s (from %s) is not trusted by this machine: if a private certificate "+
			"authority signed it, set ca_cert_pem to that authority's certificate in PEM form.", e.Host, setting)
	}
	return fmt.Sprintf("The connection to %s (from %s) failed: check %s and the network path to it.", e.Host, setting, setting)
}
