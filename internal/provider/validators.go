package provider

// Small schema validators for the platform's constrained arguments. Each one skips
// null and unknown values (the framework's convention), so a value computed by another
// resource is checked when it becomes known, and reports the attribute path with a
// message a user can act on. All run at plan time, before any request.

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"golang.org/x/text/language"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var _ validator.String = stringValidator{}

// aliasPattern is the contract's alias syntax: 1–128 of [A-Za-z0-9._-].
var aliasPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// stringValidator is the common shape of the validators below: a description of
// the valid values and a check that returns the reason a value is invalid ("" when
// it is valid).
type stringValidator struct {
	description string
	check       func(string) string
}

func (v stringValidator) Description(context.Context) string {
	return v.description
}

func (v stringValidator) MarkdownDescription(context.Context) string {
	return v.description
}

func (v stringValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if reason := v.check(req.ConfigValue.ValueString()); reason != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid attribute value",
			fmt.Sprintf("Attribute %s value must be %s; %s.", req.Path, v.description, reason))
	}
}

// trimmed runs each of inner on the value without the whitespace at its ends, for a
// setting whose grammar cannot hold any and whose value the client trims
// (client.Config's trimSettings): a value read from a file with its last line break
// means what it can only mean, from the configuration as from the environment.
func trimmed(inner ...validator.String) validator.String {
	return trimmedValidator{inner: inner}
}

type trimmedValidator struct{ inner []validator.String }

func (v trimmedValidator) Description(ctx context.Context) string {
	var parts []string
	for _, in := range v.inner {
		parts = append(parts, in.Description(ctx))
	}
	return strings.Join(parts, "; ") + " (whitespace at either end is removed)"
}

func (v trimmedValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v trimmedValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() {
		req.ConfigValue = types.StringValue(strings.TrimSpace(req.ConfigValue.ValueString()))
	}
	for _, in := range v.inner {
		in.ValidateString(ctx, req, resp)
	}
}

// absoluteURL accepts an absolute http or https URL with a host.
func absoluteURL() validator.String {
	return stringValidator{
		description: "an absolute http or https URL",
		check:       checkAbsoluteURL,
	}
}

func checkAbsoluteURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Sprintf("%q does not parse: %s", s, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q has the scheme %q", s, u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Sprintf("%q has no host", s)
	}
	return ""
}

// maxScoreURL is the longest score address the platform accepts (contract §C).
const maxScoreURL = 2048

// scoreURL accepts what the platform takes as a scoreUrl (contract §C): an absolute
// http or https URL with a host, at most 2048 characters, with every character
// outside RFC 3986 (a space, a non-ASCII letter) percent-encoded.
func scoreURL() validator.String {
	return stringValidator{
		description: fmt.Sprintf("an absolute http or https URL of at most %d characters, with characters outside RFC 3986 "+
			"percent-encoded", maxScoreURL),
		check: checkScoreURL,
	}
}

func checkScoreURL(s string) string {
	if space := client.SurroundingSpace(s); space != "" {
		// Named, not trimmed as the provider's addresses are: Terraform keeps a resource
		// argument as configured, so a trimmed address would differ from its state.
		return fmt.Sprintf("%q %s: remove it, or write trimspace(...) around a value read from a file", s, space)
	}
	if reason := checkAbsoluteURL(s); reason != "" {
		return reason
	}
	if u, _ := url.Parse(s); strings.TrimSuffix(u.Hostname(), ".") == "" {
		// "http://.": the host is the DNS root alone (the platform drops one final dot).
		return fmt.Sprintf("%q has no host", s)
	}
	if n := len(s); n > maxScoreURL {
		return fmt.Sprintf("it has %d characters", n)
	}
	position := 0 // in characters, as a user counts them
	for i, r := range s {
		position++
		if r == '%' {
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return fmt.Sprintf("the %% at position %d does not start a percent-encoded byte (%%XX)", position)
			}
			continue
		}
		if !isURICharacter(r) {
			return fmt.Sprintf("%q at position %d must be percent-encoded: a space is %%20, and for a file name "+
				"\"https://host/${replace(urlencode(\"My Score.sib\"), \"+\", \"%%20\")}\" does it (urlencode() "+
				"alone writes a space as \"+\", which a URL's path reads as a plus sign)", r, position)
		}
	}
	return ""
}

// isURICharacter reports whether r may stand unencoded in a URI (RFC 3986:
// unreserved and reserved characters).
func isURICharacter(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=", r))
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scoreAlias accepts a score alias (contract §C): 1–128 characters of
// [A-Za-z0-9._-], not "." or "..", and not a UUID in any spelling (a UUID would be
// ambiguous with the generated identifiers).
func scoreAlias() validator.String {
	return stringValidator{
		description: "1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-', other than '.' and '..', that do not form a UUID",
		check:       checkScoreAlias,
	}
}

func checkScoreAlias(s string) string {
	if !aliasPattern.MatchString(s) {
		return fmt.Sprintf("got %q", s)
	}
	if s == "." || s == ".." {
		return fmt.Sprintf("%q is a path segment of its own, so the score could not be read by it", s)
	}
	if _, err := uuid.Parse(s); err == nil {
		return fmt.Sprintf("%q is a UUID", s)
	}
	return ""
}

// serverAddress accepts an authentication server's address (contract §A): a host
// name of RFC 1123 labels with dots between them, or an IPv4 or IPv6 address; no
// scheme, port, path or space. An IPv6 address may also be written in the brackets of
// its URI form, as people copy it from a URL: wireAddress sends it without them.
func serverAddress() validator.String {
	return stringValidator{
		description: "a host name or an IP address, without scheme, port, path or spaces",
		check:       checkServerAddress,
	}
}

// hostLabel is one RFC 1123 label: letters, digits and hyphens, 1–63 characters,
// not starting or ending with a hyphen.
var hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

func checkServerAddress(s string) string {
	if inner, ok := strings.CutPrefix(s, "["); ok && strings.HasSuffix(inner, "]") {
		// The URI form of an IPv6 address: brackets, and no port after them.
		a, err := netip.ParseAddr(strings.TrimSuffix(inner, "]"))
		switch {
		case err != nil || !a.Is6() || a.Is4In6():
			return fmt.Sprintf("%q holds no IPv6 address between its brackets", s)
		case a.Zone() != "":
			return fmt.Sprintf("%q carries an IPv6 zone", s)
		}
		return ""
	}
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return fmt.Sprintf("%q carries an IPv6 zone", s)
		}
		return ""
	}
	switch {
	case strings.Contains(s, "://"):
		return fmt.Sprintf("%q has a scheme: give the host alone, and the port in port", s)
	case strings.ContainsAny(s, " \t"):
		return fmt.Sprintf("%q contains a space", s)
	case strings.Contains(s, "/"):
		return fmt.Sprintf("%q contains a path", s)
	case strings.HasPrefix(s, "[") && strings.Contains(s, "]:"):
		return fmt.Sprintf("%q contains a port after the IPv6 address: give the address alone (in brackets or not), "+
			"and the port in port", s)
	case strings.Contains(s, ":"):
		return fmt.Sprintf("%q contains a port: set it in port", s)
	case len(s) > 253:
		return fmt.Sprintf("it has %d characters, more than 253", len(s))
	}
	for _, label := range strings.Split(s, ".") {
		if !hostLabel.MatchString(label) {
			return fmt.Sprintf("%q has the label %q (labels are 1 to 63 letters, digits and hyphens, not starting or "+
				"ending with a hyphen, with dots between them)", s, label)
		}
	}
	return ""
}

// maxCharacters accepts at most n characters, counted as Unicode code points as the
// platform counts them (stringvalidator.LengthAtMost counts bytes).
func maxCharacters(n int) stringValidator {
	return stringValidator{
		description: fmt.Sprintf("at most %d characters", n),
		check: func(s string) string {
			if c := utf8.RuneCountInString(s); c > n {
				return fmt.Sprintf("it has %d", c)
			}
			return ""
		},
	}
}

// scoreReference accepts what the API takes as a score's {id}: a UUID or an alias.
func scoreReference() validator.String {
	return stringValidator{
		description: "a score UUID or a score alias (1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-')",
		check:       checkScoreReference,
	}
}

func checkScoreReference(s string) string {
	switch {
	case s == "." || s == "..":
		return fmt.Sprintf("%q is a path segment of its own, not a score", s)
	case isUUID(s) || aliasPattern.MatchString(s):
		return ""
	}
	return fmt.Sprintf("got %q", s)
}

// isUUID reports whether s is a UUID in its canonical hyphenated form, the form
// the platform generates (uuid.Parse alone also accepts braces and URN prefixes).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// pageList accepts comma-separated page numbers and ranges such as "1-3,5,8-9":
// pages are at least 1 and a range's start is not after its end.
func pageList() validator.String {
	return stringValidator{
		description: `comma-separated page numbers and ranges such as "1-3,5,8-9" (pages from 1, ranges ascending)`,
		check:       checkPageList,
	}
}

func checkPageList(s string) string {
	if s == "" {
		return "got an empty string"
	}
	for _, item := range strings.Split(s, ",") {
		first, last, isRange := strings.Cut(item, "-")
		start, ok := pageNumber(first)
		if !ok {
			return fmt.Sprintf("%q is not a page number or range", item)
		}
		if !isRange {
			continue
		}
		end, ok := pageNumber(last)
		if !ok {
			return fmt.Sprintf("%q is not a page number or range", item)
		}
		if start > end {
			return fmt.Sprintf("the range %q starts after it ends", item)
		}
	}
	return ""
}

// pageNumber parses a decimal page number ≥ 1 made of digits only (no sign, no spaces).
func pageNumber(s string) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// languageTag accepts a well-formed BCP 47 language tag such as "en" or "fr-CA".
func languageTag() validator.String {
	return stringValidator{
		description: `a BCP 47 language tag such as "en" or "fr-CA"`,
		check:       checkLanguageTag,
	}
}

func checkLanguageTag(s string) string {
	// The parser also takes '_' as a separator; BCP 47 (and the platform) does not.
	if strings.ContainsAny(s, "_ ") {
		return fmt.Sprintf("%q: subtags are separated by '-' (for example \"fr-CA\")", s)
	}
	if _, err := language.Parse(s); err != nil {
		return fmt.Sprintf("%q: %s", s, err)
	}
	return ""
}

// platformHost accepts an entry of platform_hosts: host[:port], or scheme://host[:port].
func platformHost() validator.String {
	return stringValidator{
		description: `a host name or address with an optional port ("platform.example.com", "10.0.0.5:8443"), or one ` +
			`with its scheme ("https://tokens.example.com")`,
		check: client.PlatformHostProblem,
	}
}

// positiveDuration accepts a Go duration string ("30s", "10m", "1h30m") greater than zero.
func positiveDuration() validator.String {
	return stringValidator{
		description: `a positive duration such as "30s", "10m" or "1h30m"`,
		check:       checkPositiveDuration,
	}
}

func checkPositiveDuration(s string) string {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Sprintf("%q does not parse: %s", s, err)
	case d <= 0:
		return fmt.Sprintf("%q is not positive", s)
	}
	return ""
}

// knownScoreStatus warns about a status filter the contract does not name: the
// filter matches by equality, so a misspelt status silently matches nothing, while
// a status the platform adds later must stay usable.
func knownScoreStatus() validator.String { return knownScoreStatusValidator{} }

type knownScoreStatusValidator struct{}

var _ validator.String = knownScoreStatusValidator{}

func (knownScoreStatusValidator) Description(context.Context) string {
	return "one of " + strings.Join(knownScoreStatuses, ", ") + " (another value is accepted with a warning)"
}

func (v knownScoreStatusValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (knownScoreStatusValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if slices.Contains(knownScoreStatuses, s) {
		return
	}
	resp.Diagnostics.AddAttributeWarning(req.Path, "Unknown score status",
		fmt.Sprintf("Attribute %s is %q, which is not a score status the provider knows (%s). The filter matches by "+
			"equality, so it matches no score unless the platform uses this status. Check the spelling.",
			req.Path, s, strings.Join(knownScoreStatuses, ", ")))
}

// pemCertificates accepts PEM text holding at least one certificate that parses, as
// client.NormalizePEM reads it (indented, CRLF, surrounded by whitespace).
func pemCertificates() validator.String {
	return stringValidator{
		description: "PEM-encoded certificates",
		check: func(s string) string {
			return client.PEMProblem(client.NormalizePEM(s), client.PEMCertificates)
		},
	}
}

// pemPrivateKey accepts PEM text holding an unencrypted private key block, as
// client.NormalizePEM reads it. It quotes nothing of the value.
func pemPrivateKey() validator.String {
	return stringValidator{
		description: "a PEM-encoded private key",
		check: func(s string) string {
			return client.PEMProblem(client.NormalizePEM(s), client.PEMPrivateKey)
		},
	}
}

// requestHeaders checks each header of request_headers as the client will send it.
func requestHeaders() validator.Map { return requestHeadersValidator{} }

type requestHeadersValidator struct{}

func (requestHeadersValidator) Description(context.Context) string {
	return "HTTP header names with values on one line, none of the headers the provider sets itself"
}

func (v requestHeadersValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (requestHeadersValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for name, v := range req.ConfigValue.Elements() {
		str, ok := v.(types.String)
		if !ok || str.IsUnknown() {
			continue
		}
		if problem := client.CheckRequestHeader(name, str.ValueString()); problem != "" {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(name), "Invalid request header",
				fmt.Sprintf("request_headers[%q] cannot be sent: %s.%s", name, problem, ownedHeaderAdvice(name)))
		}
	}
}

// ownedHeaderAdvice says what to do instead of sending Authorization in
// request_headers, or "" for any other header.
func ownedHeaderAdvice(name string) string {
	if !strings.EqualFold(name, "Authorization") {
		return ""
	}
	return " The provider sends its own Authorization header (the administrator session or the platform token), so a " +
		"gateway in front of the platform cannot take its credential there: give the gateway's credential in a header " +
		"of its own instead, which request_headers sends to the platform's hosts. Most gateways accept one: " +
		"Proxy-Authorization (e.g. \"Basic …\" or \"Bearer …\"), a service token's CF-Access-Client-Id and " +
		"CF-Access-Client-Secret, or an API key header such as X-API-Key; a client certificate goes in client_cert_pem " +
		"and client_key_pem. A forward proxy's login goes in the proxy address instead: " +
		"HTTPS_PROXY=http://user:password@proxy:port."
}

// basicToken checks basic_token as the client sends it and the platform decodes it
// (client.CheckBasicToken): a value that can never be taken is refused, one whose
// decoded form the platform will likely refuse is warned of. Neither message quotes it.
func basicToken() validator.String { return basicTokenValidator{} }

type basicTokenValidator struct{}

var _ validator.String = basicTokenValidator{}

func (basicTokenValidator) Description(context.Context) string {
	return "the standard Base64 of client_id:client_secret, optionally after \"Basic \" (whitespace at either end is removed)"
}

func (v basicTokenValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v basicTokenValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	problem, warning := client.CheckBasicToken(req.ConfigValue.ValueString())
	if problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid attribute value",
			fmt.Sprintf("Attribute %s value must be %s; %s.", req.Path, v.Description(ctx), problem))
	}
	if warning != "" {
		resp.Diagnostics.AddAttributeWarning(req.Path, "Application credential the platform will likely refuse",
			fmt.Sprintf("Attribute %s, %s.", req.Path, warning))
	}
}
