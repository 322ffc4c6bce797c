package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

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
// as "Cause:". An error of no known cause leads with detail.
func addClientError(diags *diag.Diagnostics, summary, detail string, err error) {
	if settings, refusal := refusalOf(err); refusal != nil {
		if _, reported := reportedRefusals.LoadOrStore(refusal, struct{}{}); reported {
			diags.AddError(summary, fmt.Sprintf("The platform refused the same credentials (%s) as for another object "+
				"of this run: that object's error says what to check.", settings))
			return
		}
	}
	if lead := causeLead(err); lead != "" {
		diags.AddError(summary, lead+"\n\n"+detail+"\n\nCause: "+err.Error())
		return
	}
	diags.AddError(summary, detail+"\n\nCause: "+err.Error())
}

// reportedRefusals holds each refusal of the configured credentials that a diagnostic
// has led with. The client holds such a refusal for good and fails every later call
// with the very same error (one login, one grant: see the client's cache), so the
// error's identity is the refusal's: the first diagnostic to report it, decided here
// once and race-free, carries the lead, and every other object it failed gets one line
// pointing to it, instead of the same lead once per object. A provider process holds a
// few such refusals at most (one per credential).
var reportedRefusals sync.Map

// refusalOf returns the settings a refused credential comes from and the refusal of
// that configured credential in err (nil for none).
func refusalOf(err error) (settings string, refusal error) {
	var adminRefused *client.AdminLoginRefusedError
	var apiErr *client.APIError
	var oauthErr *client.OAuthError
	switch {
	case errors.As(err, &adminRefused):
		return "admin_username and admin_password", adminRefused
	case client.IsAdminLoginRefused(err) && errors.As(err, &apiErr):
		return "admin_username and admin_password", apiErr
	case errors.As(err, &oauthErr) && oauthErr.ErrorCode == "invalid_client":
		return "client_id and client_secret, or basic_token", oauthErr
	case errors.As(err, &oauthErr) && oauthErr.ErrorCode == "invalid_grant":
		return "username and password", oauthErr
	case errors.As(err, &oauthErr):
		return "username and password, or the application credential", oauthErr
	}
	return "", nil
}

// causeLead classifies a client error once, by cause, and returns the sentence a
// diagnostic leads with, or "" for an error of no known cause (e.g. a rejected
// argument, whose platform message says it all). A refused login whose credentials
// were sent with whitespace at either end leads with that (spacedLead): it is what
// the credentials' own lead cannot show, since they look right.
func causeLead(err error) string {
	lead := causeOnlyLead(err)
	if spaced := spacedLead(err); spaced != "" {
		return spaced + " " + lead
	}
	return lead
}

// spacedLead names the credentials of a refused login that were sent starting or
// ending with whitespace, or returns "".
func spacedLead(err error) string {
	var oauthErr *client.OAuthError
	var adminErr *client.AdminLoginRefusedError
	var spaced []client.SpacedSetting
	switch {
	case errors.As(err, &oauthErr):
		spaced = oauthErr.Spaced
	case errors.As(err, &adminErr):
		spaced = adminErr.Spaced
	}
	if len(spaced) == 0 {
		return ""
	}
	facts := make([]string, len(spaced))
	for i, s := range spaced {
		facts[i] = "`" + s.Setting + "`"
		if s.EnvVar != "" {
			facts[i] += " (from " + s.EnvVar + ")"
		}
		facts[i] += " " + s.What
	}
	them := "it"
	if len(spaced) > 1 {
		them = "them"
	}
	return fmt.Sprintf("%s, sent as part of %s, and the login was refused: remove the whitespace (`echo -n`, "+
		"`trimspace()`, a secret made without the file's last line break) unless it belongs to the value.",
		strings.Join(facts, " and "), them)
}

// causeOnlyLead is causeLead's classification by the error's cause.
func causeOnlyLead(err error) string {
	var missing *client.MissingSettingError
	var oauthErr *client.OAuthError
	var addrErr *client.AddressError
	var netErr *client.NetworkError
	var rateErr *client.RetryAfterError
	var apiErr *client.APIError
	var foreign *client.ForeignAnswerError
	var countErr *client.CountError
	var pagingErr *client.PagingError
	var changedErr *client.ListChangedError
	var movedErr *client.TokenServiceMovedError
	var redirectErr *client.RedirectError
	var foreignHost *client.ForeignHostError
	var waited *client.CredentialWaitError
	switch {
	case errors.Is(err, context.Canceled) && errors.As(err, &waited):
		return interruptedCredentialLead(waited.Credential)
	case errors.Is(err, context.Canceled):
		return interruptedLead
	case errors.As(err, &apiErr) && apiErr.HTTPSOnly:
		setting := apiErr.Setting
		if setting == "" {
			setting = "the platform's address"
		}
		return fmt.Sprintf("The server at %s (from %s) speaks HTTPS and refused a request in plain HTTP (HTTP 400): "+
			"write %s with https://. Nothing was changed.", apiErr.Host, setting, setting)
	case errors.As(err, &redirectErr):
		return redirectLead(redirectErr)
	case errors.As(err, &foreignHost) && foreignHost.Host != "":
		return foreignHostLead(foreignHost)
	case errors.As(err, &foreignHost):
		return fmt.Sprintf("A document of the platform's token flow links to %s, which is not on the platform (%s), so the "+
			"provider sent no credentials there. A misconfigured or tampered discovery document (/auth) leads there: "+
			"check that platform_url is the platform's address, and ask the platform's operators about the link.",
			foreignHost.Href, foreignHost.Platform)
	case errors.As(err, &foreign):
		setting := foreign.Setting
		if setting == "" {
			setting = "the platform's address"
		}
		return fmt.Sprintf("The address in %s answered with %s (HTTP %d), not the platform's JSON: check the address, and "+
			"whether a proxy, a web application firewall or a captive portal is in the way. The provider took the answer for "+
			"no success.", setting, foreign.What, foreign.Status)
	case errors.As(err, &countErr):
		return fmt.Sprintf("The platform answered a count of %d that cannot be true for the request, so the provider does "+
			"not pass it on: the platform ignored a parameter of the count.", countErr.Count)
	case errors.As(err, &pagingErr):
		return "The platform's list pages did not advance (it ignored the page parameters), so the provider stopped " +
			"reading them instead of looping."
	case errors.As(err, &changedErr):
		return "The platform changed too fast to list: other clients deleted scores ahead of the listing faster than it " +
			"could read them again, so the provider returns no list rather than an incomplete one. Run again, or narrow " +
			"the listing with a filter."
	case errors.As(err, &netErr) && !client.IsUnknownOutcome(err):
		return networkLead(netErr)
	case errors.As(err, &addrErr):
		return addressLead(addrErr)
	case errors.As(err, &missing):
		msg := fmt.Sprintf("The provider setting %q is needed here and is not set. Set it in the provider configuration or in the "+
			"environment variable %s", missing.Setting, missing.EnvVar)
		switch missing.Or {
		case "":
		case "admin_url":
			msg += fmt.Sprintf(", or set admin_url (%s) to derive it", missing.OrEnvVar)
		default:
			msg += fmt.Sprintf(", or set %s (%s) instead", missing.Or, missing.OrEnvVar)
		}
		msg += ". A value that the configuration only knows after apply counts as unset during plan."
		if typo := misspeltFor(missing.EnvVar); typo != "" {
			msg += fmt.Sprintf(" The environment variable %s is set, which the provider does not read: did you mean %s?",
				typo, missing.EnvVar)
		}
		return msg
	case errors.As(err, &oauthErr) && oauthErr.ErrorCode == "invalid_client":
		return "The platform refused the application credential (OAuth error invalid_client): client_id and " +
			"client_secret, or basic_token, are wrong or unknown to the platform; check them. The user's name and password " +
			"were not checked."
	case errors.As(err, &oauthErr) && oauthErr.ErrorCode == "invalid_grant":
		return "The platform refused the user's credentials (OAuth error invalid_grant): username or password is wrong, " +
			"or the user may not log in; check username and password. The application credential was accepted."
	case errors.As(err, &oauthErr) && oauthErr.ErrorCode == "" && oauthErr.Status == http.StatusUnauthorized:
		return "The platform refused the login of the platform user `username` (HTTP 401 to the password grant): check " +
			"username and password, and the application credential (client_id/client_secret or basic_token), which a 401 " +
			"may refuse instead. The provider asked once for this run, so that a wrong password cannot lock the account."
	case errors.As(err, &oauthErr) && oauthErr.ErrorCode == "":
		return fmt.Sprintf("The platform refused the login of the platform user `username` (HTTP %d to the password "+
			"grant): username or password is wrong, or the user may not log in; check username and password. The provider "+
			"asked once for this run, so that a wrong password cannot lock the account.", oauthErr.Status)
	case errors.As(err, &oauthErr):
		return fmt.Sprintf("The platform login (the password grant for the platform user `username`) was refused with "+
			"the OAuth error %s. Check username, password and the application credential (client_id/client_secret or "+
			"basic_token).", oauthErr.ErrorCode)
	case errors.As(err, &rateErr):
		// A window's count of requests, not how many run at once, is what such a wait
		// ends: a lower -parallelism meets the same answer.
		wait := rateErr.Wait.Round(time.Second)
		return fmt.Sprintf("The platform is limiting the request rate (HTTP %d) and asked to wait %s, longer than the "+
			"provider spends on retries. Nothing was changed by this request. Run again once that wait (%s) is over; a "+
			"lower -parallelism does not shorten it.", rateErr.Status, wait, wait)
	case !errors.As(err, &apiErr):
		return ""
	case apiErr.HTML:
		// An HTML page may come from anything on the way (contract §V): never conclude
		// from its status alone that the credentials lack a right or the platform failed.
		return htmlPageLead(apiErr)
	case errors.As(err, &movedErr):
		return tokenServiceMovedLead(movedErr)
	case client.IsAdminLoginRefused(err):
		return "The administrator API login (admin_username/admin_password) was refused. " +
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
	case apiErr.Setting != "" && apiErr.Status >= 400 && apiErr.Status != http.StatusNotFound && !apiErr.Query &&
		(apiErr.Method == http.MethodGet || apiErr.Method == http.MethodHead):
		// A request with no arguments of the user's, built from one address setting: a
		// refusal is that address's (a 404 may mean an object is gone, and is the caller's).
		return fmt.Sprintf("The address in %s (%s) refused %s %s with HTTP %d, a request built from %s alone, which the "+
			"platform serves: check %s, and whether a gateway or another server is at that address.", apiErr.Setting,
			apiErr.Host, apiErr.Method, apiErr.Path, apiErr.Status, apiErr.Setting, apiErr.Setting)
	}
	return ""
}

// foreignHostLead is the first sentence for a link of the token flow to a host no
// setting names: the host found, and platform_hosts, the setting that names it. The
// provider sent nothing there, and never will unless the user names the host.
func foreignHostLead(e *client.ForeignHostError) string {
	scheme, _, _ := strings.Cut(e.Href, "://")
	return fmt.Sprintf("The platform's token flow links to the host %s, which platform_url (%s) does not name, so no "+
		"credentials went there; if %s is the platform under another name, add %q to platform_hosts (or %s). The provider then follows such links at platform_url's address, so the name "+
		"need not resolve here; for a token service on a host of its own, add %q instead, which is reached as written "+
		"(or set platform_url to %s://%s if this machine reaches the platform there). If %s is not the platform's, "+
		"check that platform_url is the platform's address, and ask the platform's operators about the link (%s): a "+
		"misconfigured or tampered discovery document leads there.", e.Host, e.Platform, e.Host, e.Host,
		client.EnvPlatformHosts, scheme+"://"+e.Host, scheme, e.Host, e.Host, e.Href)
}

// tokenServiceMovedLead is the first sentence for a link of the token flow that answered
// 404 or 410 even after the provider read /auth again: the token service moved, or is
// moving, and the provider's settings are not at fault.
func tokenServiceMovedLead(e *client.TokenServiceMovedError) string {
	again := "and /auth, read again, still leads there"
	if e.Again != "" {
		again = fmt.Sprintf("and so did %s, where /auth leads when read again", e.Again)
	}
	return fmt.Sprintf("The platform's token service, found through platform_url, has moved or is moving: %s %s, where its /auth document led, answered "+
		"HTTP %d, %s. Run again once the platform's upgrade is complete, or ask its operators. The provider's settings "+
		"(platform_url) are not at fault, and this call changed nothing.", e.Method, e.Path, e.Status, again)
}

// interruptedLead is the first sentence for a call stopped by an interrupt (Ctrl-C).
const interruptedLead = "Interrupted: Terraform was stopped (Ctrl-C or a cancelled run) while this call was on its way. " +
	"The settings are not at fault; run the command again."

// interruptedCredentialLead is the first sentence for a call stopped by an interrupt
// while it waited for its credential (credential names the request on the wire:
// "platform token grant", "administrator login"), and what that may leave live.
func interruptedCredentialLead(credential string) string {
	return "Interrupted: Terraform was stopped (Ctrl-C or a cancelled run) while the provider's " + credential +
		" was on its way, before this call was sent: the call changed nothing. The settings are not at fault; run " +
		"the command again. " + credentialLeftHint(credential)
}

// interrupted reports whether err is a call stopped by an interrupt.
func interrupted(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) || (err != nil && errors.Is(ctx.Err(), context.Canceled))
}

// addReadError reports a failed refresh read. An interrupt (Ctrl-C) stops every read
// in flight at once; it is reported once per provider process, without the details
// that would send the user to the settings: the other reads keep their prior state,
// which the stopped run does not save anyway.
func addReadError(ctx context.Context, c *client.Client, diags *diag.Diagnostics, summary, detail string, err error) {
	if interrupted(ctx, err) {
		var waited *client.CredentialWaitError
		switch {
		case !c.FirstInterruption():
		case errors.As(err, &waited):
			diags.AddError("Interrupted", "Terraform was stopped (Ctrl-C or a cancelled run) while the provider's "+
				waited.Credential+" was on its way, before the reads that wait for it were sent: these reads changed "+
				"nothing. The settings are not at fault; run the command again. "+credentialLeftHint(waited.Credential))
		default:
			diags.AddError("Interrupted", "Terraform was stopped (Ctrl-C or a cancelled run) while the provider was reading "+
				"objects from the platform; the reads still on their way were abandoned. The settings are not at fault, and "+
				"nothing was changed by these reads. Run the command again.")
		}
		return
	}
	addClientError(diags, summary, detail, err)
}

// addressLead is the first sentence for an address that does not lead to the
// platform's API: a 404 for a path the platform always serves. It names the setting
// the address came from, what answered there, and what the value should look like.
func addressLead(e *client.AddressError) string {
	const unchanged = " Nothing was changed and nothing was removed from the state."
	switch {
	case e.Missing != "":
		return fmt.Sprintf("The address in %s lacks its %s segment, with which the administrator API's address ends: "+
			"write %s as %s.%s", e.Setting, e.Missing, e.Setting, e.Expected, unchanged)
	case e.Service != "":
		return fmt.Sprintf("The platform has no publishing service named %q (publishing_service): the administrator API "+
			"answered 404 for %s under that name. Correct publishing_service (its default is %q), or set publishing_url to "+
			"the publishing service's address, and run again.%s", e.Service, e.Path, client.DefaultPublishingService, unchanged)
	}
	setting, _, _ := strings.Cut(e.Setting, " ")
	path := e.Path
	if path == "" {
		path = "a path the platform always serves"
	}
	answered := "something answered 404"
	if e.Answered != "" {
		answered = e.Answered + " answered 404"
	}
	msg := fmt.Sprintf("The address in %s does not lead to the platform's API: %s for %s, which the platform always "+
		"serves, so the address is wrong (a typo in the host, port or path, or a gateway without the route).", e.Setting,
		answered, path)
	if e.Expected != "" {
		msg += fmt.Sprintf(" %s should be %s.", setting, e.Expected)
	}
	return msg + fmt.Sprintf(" Nothing was changed and nothing was removed from the state. Correct %s and run again.", setting)
}

// htmlPageLead is the first sentence for a non-2xx answer that is an HTML page: what
// answered, for which address setting, through which proxy, and what to check. The
// platform's API answers errors in JSON; a page comes from a forward proxy, a firewall,
// a captive portal or another web server at the address (or the platform's own gateway
// failing, for a 5xx).
func htmlPageLead(e *client.APIError) string {
	setting := e.Setting
	if setting == "" {
		setting = "the platform's address"
	}
	if e.Status == http.StatusProxyAuthRequired && e.Proxy != "" && !e.Tunnelled {
		return proxyLoginLead(e.Proxy, e.ProxyVar, e.Host, setting, e.ProxyLogin)
	}
	if (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden) && (e.Proxy == "" || e.Tunnelled) {
		return refusedPageLead(e, setting)
	}
	var via, check string
	if e.Proxy != "" {
		from := "configured for this machine"
		if e.ProxyVar != "" {
			from = "from " + e.ProxyVar
		}
		via = fmt.Sprintf(", through the proxy at %s (%s)", e.Proxy, from)
		check = fmt.Sprintf("check %s, whether the proxy lets this machine reach that host (or NO_PROXY should name it), "+
			"and any firewall on the way", setting)
	} else {
		check = fmt.Sprintf("check %s (a typo in the host or port reaches another server), and whether a proxy, a firewall "+
			"or a captive portal is in the way", setting)
	}
	msg := fmt.Sprintf("An HTML page answered HTTP %d for the address in %s (%s%s), not the platform's API, which answers "+
		"in JSON: something in its place refused or failed the request", e.Status, setting, e.Host, via)
	if e.Status >= 500 {
		msg += " (or the platform's gateway failed; the provider retried where that is safe)"
	}
	msg += ": " + check + "."
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		// A zero-trust gateway refuses a request without its access header so.
		if e.HeadersSet {
			msg += " If a gateway in front of the platform demands an access header, check the names and values in " +
				"request_headers (they were sent)."
		} else {
			msg += " If a gateway in front of the platform demands an access header (a service token, an API key), set " +
				"it in request_headers (or " + client.EnvRequestHeaders + ")."
		}
	}
	return msg
}

// refusedPageLead is the first sentence for a 401 or 403 HTML page from the platform's
// host (directly, or through a proxy's tunnel, which the proxy cannot answer into):
// a gateway that wants its access header, or a web application firewall that
// blocked the request. The access header leads, since it is what the user can set.
func refusedPageLead(e *client.APIError, setting string) string {
	what := "refused the request"
	if e.Status == http.StatusUnauthorized {
		what = "asked for credentials"
	}
	fix := fmt.Sprintf("if it demands an access header (a service token, an API key), set it in request_headers (or %s)",
		client.EnvRequestHeaders)
	if e.HeadersSet {
		fix = "if it demands an access header, check the names and values in request_headers: they were sent, and " +
			"refused"
	}
	via := ""
	if e.Proxy != "" {
		via = fmt.Sprintf(", reached through the proxy at %s in a tunnel the proxy cannot answer into", e.Proxy)
	}
	return fmt.Sprintf("The gateway or web application firewall at %s (from %s%s) %s with an HTML page (HTTP %d), not "+
		"the platform's API, which answers in JSON: %s. If the headers are right, a web application firewall may have "+
		"blocked the request: ask the operators of that host, and check that %s is the gateway's address.",
		e.Host, setting, via, what, e.Status, fix, setting)
}

// proxySource names where the proxy came from: its environment variable, when known.
func proxySource(proxyVar string) string {
	if proxyVar == "" {
		return "the proxy configured for this machine"
	}
	return proxyVar
}

// proxyLoginLead is the first sentence for a forward proxy that wants a login (407).
func proxyLoginLead(proxy, proxyVar, host, setting string, loginSent bool) string {
	from := proxySource(proxyVar)
	if loginSent {
		return fmt.Sprintf("The proxy at %s (from %s) refused the login in %s (HTTP 407 Proxy Authentication Required), so "+
			"the request for %s (from %s) never reached the platform: check the user and password in %s "+
			"(http://USER:PASSWORD@%s, with @, : and / in them percent-encoded as %%40, %%3A and %%2F).",
			proxy, from, from, host, setting, from, proxy)
	}
	return fmt.Sprintf("The proxy at %s (from %s) wants a login (HTTP 407 Proxy Authentication Required), so the request "+
		"for %s (from %s) never reached the platform: put the proxy's user and password in %s as "+
		"http://USER:PASSWORD@%s (with @, : and / in them percent-encoded as %%40, %%3A and %%2F).",
		proxy, from, host, setting, from, proxy)
}

// localLimitLead is the lead of a connection this machine refused to open: its
// limit, not the network and not the platform.
func localLimitLead(e *client.NetworkError, setting string) string {
	limit := "its open-files limit (unknown here)"
	if e.OpenFiles > 0 {
		limit = fmt.Sprintf("the process may open only %d files at once", e.OpenFiles)
	}
	if e.Waited {
		// No test follows this hint through Terraform: the lead does not come there reliably.
		// Tried (2026-11-29): a plan of 64 score reads at -parallelism=64 under `ulimit -n 32`
		// (8 connections a host), reads answered in 2 s, request_timeout 3s, max_retries 0: 0
		// to 22 of the 56 failed reads carried this lead over seven runs, the rest the timeout
		// lead ("Nothing answered … check admin_url and the network path"); with retries
		// (reads in 1 s or 2 s), none in two. A connection that a timed-out request frees goes
		// to the next waiter, whose own request_timeout, begun about as early, is nearly
		// spent: it sends and times out, so a wait seldom ends without a connection. Followed
		// in process only: its case in leadCases (TestCauseLeadAdvisesForEveryCause); the
		// refused-connection lead below is followed through Terraform
		// (TestAccDiagnosticsHints_openFilesLimitAsGiven).
		return fmt.Sprintf("This machine, not the network, held the request to %s (from %s) until it ended: all %d "+
			"connections the provider opens to one host stayed busy (%s), and nothing was sent. Run with a lower "+
			"`-parallelism`, raise request_timeout for a slow platform, or raise the limit (`ulimit -n 4096`; a "+
			"container's or CI agent's `nofile`, a service's `LimitNOFILE`).", e.Host, setting, e.ConnsPerHost, limit)
	}
	return fmt.Sprintf("This machine, not the network, refused a connection to %s (from %s): %s, and Terraform ran "+
		"more operations at once than it allows. Raise the limit (`ulimit -n 4096`; a container's or CI agent's `nofile`, "+
		"a service's `LimitNOFILE`) or run with a lower `-parallelism`; nothing was sent with this request.",
		e.Host, setting, limit)
}

// networkLead is the first sentence of a diagnostic for a request that got no answer:
// what happened, at which address setting, and what to check.
func networkLead(e *client.NetworkError) string {
	setting := e.Setting
	if setting == "" {
		setting = "the platform's address"
	}
	if e.Bypassed != "" && (e.Kind == client.NetworkRefused || e.Kind == client.NetworkDNS || e.Kind == client.NetworkTimeout) {
		return fmt.Sprintf("The request for %s (from %s) went straight to the host, past the proxy in %s, because NO_PROXY "+
			"names it (%q), and failed: %s. If only the proxy reaches the platform, remove that entry from NO_PROXY; "+
			"otherwise check %s.", e.Host, setting, e.BypassedProxyVar, e.Bypassed, bypassedFailure(e), setting)
	}
	switch e.Kind {
	case client.NetworkLocal:
		return localLimitLead(e, setting)
	case client.NetworkProxyRefused:
		if strings.HasPrefix(e.ProxyStatus, "407") {
			return proxyLoginLead(e.Proxy, e.ProxyVar, e.Host, setting, e.ProxyLogin)
		}
		return fmt.Sprintf("The proxy at %s (from %s) refused to open a tunnel to %s (from %s): it answered %s, so "+
			"nothing reached the platform. The proxy's policy blocks that host: ask its operators to allow it, or, if "+
			"this machine reaches %s directly, name it in NO_PROXY.", e.Proxy, proxySource(e.ProxyVar), e.Host, setting, e.ProxyStatus,
			e.Host)
	case client.NetworkRefused:
		return fmt.Sprintf("Nothing accepts connections at %s (from %s): check %s and that the platform is running there.",
			e.Host, setting, setting)
	case client.NetworkDNS:
		return fmt.Sprintf("The host name in %s (%s) does not resolve: check %s and the DNS of this machine.", setting, e.Host, setting)
	case client.NetworkTimeout:
		return fmt.Sprintf("Nothing answered at %s (from %s) within %s × %d attempt(s): check %s and the network path to it, "+
			"or raise request_timeout for a slow platform. %s", e.Host, setting, e.Timeout, max(e.Attempts, 1), setting,
			timeoutAttempts(e))
	case client.NetworkStaleConnection:
		return fmt.Sprintf("The platform at %s (from %s) closed a connection kept open from an earlier request just as this "+
			"request was sent on it, before any answer: run the command again. Servers close idle connections on their own "+
			"schedule; this does not point at %s or the network.", e.Host, setting, setting)
	case client.NetworkTLS:
		return tlsLead(e, setting)
	case client.NetworkPlainHTTP:
		return fmt.Sprintf("The server at %s (from %s) answered in plain HTTP, not HTTPS: write %s with http://, or use "+
			"the address of the platform's HTTPS port.", e.Host, setting, setting)
	case client.NetworkProxy:
		from := proxySource(e.ProxyVar)
		return fmt.Sprintf("The proxy at %s (from %s) could not be reached, so the request for %s (from %s) never left "+
			"this machine: check %s and that the proxy runs, or name the platform's host in NO_PROXY to reach it directly.",
			e.Proxy, from, e.Host, setting, from)
	}
	return fmt.Sprintf("The connection to %s (from %s) failed: check %s and the network path to it.", e.Host, setting, setting)
}

// timeoutAttempts says how the attempts of a request that got no answer relate to
// max_retries: all of them spent, or fewer, since a second silence ends the retries.
func timeoutAttempts(e *client.NetworkError) string {
	attempts := max(e.Attempts, 1)
	if e.MaxRetries == 0 {
		return fmt.Sprintf("It waited request_timeout (%s) once: max_retries = 0 allows no retry.", e.Timeout)
	}
	if attempts > e.MaxRetries {
		return fmt.Sprintf("Each attempt waited request_timeout (%s): the first and the max_retries = %d retries.",
			e.Timeout, e.MaxRetries)
	}
	return fmt.Sprintf("Each attempt waited request_timeout (%s); after a second silence the provider stops retrying, "+
		"though max_retries = %d would allow %d attempts.", e.Timeout, e.MaxRetries, e.MaxRetries+1)
}

// bypassedFailure says how a request sent past the proxy failed.
func bypassedFailure(e *client.NetworkError) string {
	switch e.Kind {
	case client.NetworkDNS:
		return "its host name does not resolve on this machine"
	case client.NetworkRefused:
		return "nothing accepts connections there"
	}
	return fmt.Sprintf("nothing answered within %s", e.Timeout)
}

// tlsLead is the first sentence for a certificate that failed verification, by cause:
// the advice for an untrusted authority (ca_cert_pem) helps with nothing else.
func tlsLead(e *client.NetworkError, setting string) string {
	p := e.TLS
	if p == nil {
		p = &client.TLSProblem{Kind: client.TLSOther}
	}
	switch p.Kind {
	case client.TLSOtherNames:
		names := "no host names"
		if len(p.Names) > 0 {
			names = strings.Join(p.Names, ", ")
		}
		return fmt.Sprintf("The TLS certificate of %s (from %s) is issued for other names (%s), not for %s, the host "+
			"%s uses: set %s to an address with one of those names, or have the platform's certificate issued for %s.",
			e.Host, setting, names, p.Host, setting, setting, p.Host)
	case client.TLSExpired:
		if p.Now.Before(p.NotBefore) {
			return fmt.Sprintf("The TLS certificate of %s (from %s) is not valid yet: it is valid from %s, and this machine's "+
				"clock says %s. Check this machine's clock.", e.Host, setting, p.NotBefore.UTC().Format(time.RFC3339),
				p.Now.UTC().Format(time.RFC3339))
		}
		return fmt.Sprintf("The TLS certificate of %s (from %s) expired at %s (this machine's clock says %s): the platform "+
			"must renew its certificate, or this machine's clock is wrong.", e.Host, setting,
			p.NotAfter.UTC().Format(time.RFC3339), p.Now.UTC().Format(time.RFC3339))
	case client.TLSAuthority:
		issuer := ""
		if p.Issuer != "" {
			issuer = fmt.Sprintf(" (it was signed by %q)", p.Issuer)
		}
		if p.CASet {
			return fmt.Sprintf("The TLS certificate of %s (from %s) was signed by an authority that ca_cert_pem (or %s) "+
				"does not hold%s: set ca_cert_pem to the certificate of the authority that signed it, or of the "+
				"authority above it.", e.Host, setting, client.EnvCACertPEM, issuer)
		}
		return fmt.Sprintf("The TLS certificate of %s (from %s) is not trusted by this machine%s: if a private certificate "+
			"authority signed it, set ca_cert_pem (or %s) to that authority's certificate in PEM form.", e.Host, setting,
			issuer, client.EnvCACertPEM)
	case client.TLSClientCertMissing:
		return fmt.Sprintf("The server at %s (from %s) refused the TLS handshake because it demands a client certificate "+
			"and none was sent (TLS alert %q): a gateway in front of the platform requires mutual TLS. Set client_cert_pem "+
			"and client_key_pem (or %s and %s) to the certificate and key it expects.", e.Host, setting, p.Alert,
			client.EnvClientCertPEM, client.EnvClientKeyPEM)
	case client.TLSClientCertRejected:
		return fmt.Sprintf("The server at %s (from %s) refused the client certificate in client_cert_pem (TLS alert %q): "+
			"check that it is the certificate its gateway trusts (signed by the authority it expects), that it has not "+
			"expired, and that client_key_pem is its key.", e.Host, setting, p.Alert)
	}
	return fmt.Sprintf("The TLS certificate of %s (from %s) failed verification: check the platform's certificate and %s.",
		e.Host, setting, setting)
}

// certificatePairLead is the advice for a client certificate without its key, or a key
// without its certificate: the client says which one is missing.
func certificatePairLead(certPEM, keyPEM string) string {
	if (certPEM == "") != (keyPEM == "") {
		return " Set both client_cert_pem and client_key_pem, or neither."
	}
	return ""
}

// redirectLead is the lead of a redirect the client did not follow. It says whether
// the request carried credentials, and names a setting only where one can end the
// redirect: another host, or a path, that an address setting can name.
func redirectLead(e *client.RedirectError) string {
	setting := e.Setting
	if setting == "" {
		setting = "the address setting (platform_url, publishing_url, admin_url or registry_url)"
	}
	switch {
	case e.LoginPage:
		return fmt.Sprintf("The platform sent %s %s to its login page %s (HTTP %d): it took the provider's credential for no "+
			"session, even one from a fresh login, so the provider stopped. No provider setting changes this: ask the "+
			"platform's operators whether the API takes the account's session on this call.", e.Method, e.Path, e.Target, e.Status)
	case e.Credentialed && !e.SameOrigin:
		return fmt.Sprintf("The platform redirected %s %s to another host, %s (HTTP %d); the request carries credentials, so "+
			"the provider sent nothing there. If that is the platform's own address, set %s to it.", e.Method, e.Path,
			e.Target, e.Status, setting)
	case e.Credentialed:
		return fmt.Sprintf("The platform redirected %s %s to %s on the same host (HTTP %d); the request carries credentials, "+
			"and the API never redirects a call, so the provider did not follow. If the platform moved the API there, set "+
			"%s to its new address; otherwise a proxy in front of the platform redirects it: ask its operators.", e.Method,
			e.Path, e.Target, e.Status, setting)
	case !e.SameOrigin:
		return fmt.Sprintf("The platform redirected %s %s, a request without credentials, to another host, %s (HTTP %d); "+
			"the provider follows a redirect only on the scheme, host and port it asked. If that is the platform's own "+
			"address, set %s to it.", e.Method, e.Path, e.Target, e.Status, setting)
	}
	return fmt.Sprintf("The platform redirected %s %s, a request without credentials, again and again on its own host (last "+
		"to %s, HTTP %d): a redirect loop, which the provider left after %d redirects. No provider setting ends it: ask "+
		"the platform's operators, or those of the proxy in front of it.", e.Method, e.Path, e.Target, e.Status, e.Followed)
}
