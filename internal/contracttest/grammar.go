// Package contracttest holds the values that the wire contract's grammars
// (internal/emulator/WIRE.md: the administrator API and score publishing) accept and refuse, as one table that
// both the emulator's tests and the provider's validator tests run, so that the
// platform and the provider's plan-time checks cannot drift apart.
//
// Only tests use this package.
package contracttest

import "strings"

// Value is one entry of a grammar table.
type Value struct {
	// Value is the string sent as the parameter or set as the attribute.
	Value string
	// Valid says whether the contract accepts it.
	Valid bool
	// Why names the rule the entry exercises.
	Why string
}

// ScoreURLs are values of scoreUrl (the score resource's score_url): an absolute
// RFC 3986 URI with scheme http or https and a non-empty host, at most 2048
// characters, with everything outside RFC 3986 percent-encoded.
var ScoreURLs = []Value{
	{"https://cdn.example/scores/a.sib", true, "plain https"},
	{"http://cdn.example:8080/a.sib?v=2#p1", true, "port, query and fragment"},
	{"https://cdn.example/My%20Score%C3%A9.sib", true, "percent-encoded space and é (urlencode())"},
	{"https://cdn.example/a-b_c.~d/(x)!$&'*+,;=:@.sib", true, "every other RFC 3986 character"},
	{"https://[2001:db8::1]/a.sib", true, "IPv6 literal host"},
	{"https://cdn.example/" + strings.Repeat("a", 2048-len("https://cdn.example/")), true, "2048 characters"},
	{"https://cdn.example/" + strings.Repeat("a", 2049-len("https://cdn.example/")), false, "2049 characters"},
	{"https://cdn.example/My Score.sib", false, "a raw space"},
	{" https://cdn.example/a.sib", false, "a leading space"},
	{"https://cdn.example/a.sib\n", false, "a trailing line break (a file's last line)"},
	{"https://cdn.example/partitur-é.sib", false, "a raw non-ASCII letter"},
	{"https://cdn.example/a\"b.sib", false, "a double quote"},
	{"https://cdn.example/a%zz.sib", false, "a % not followed by two hex digits"},
	{"ftp://cdn.example/a.sib", false, "scheme ftp"},
	{"https:///a.sib", false, "no host"},
	{"/scores/a.sib", false, "relative"},
	{"cdn.example/a.sib", false, "no scheme"},
	{"", false, "empty"},
}

// Aliases are values of scoreId (the score resource's score_id): 1–128 characters
// of [A-Za-z0-9._-], not "." or "..", and not a UUID in any spelling a UUID parser
// accepts.
var Aliases = []Value{
	{"myGreatScore", true, "letters"},
	{"tf-acc_1.2", true, "every allowed punctuation"},
	{"a", true, "one character"},
	{strings.Repeat("x", 128), true, "128 characters"},
	{"...", true, "three dots are not a path segment of their own"},
	{".hidden", true, "a leading dot"},
	{"4f0c3c1e-9d2b-4c4e-8a59-0a1b2c3d4e5", true, "35 characters of a UUID"},
	{"4f0c3c1e9d2b4c4e8a590a1b2c3d4e5", true, "31 hex digits"},
	{strings.Repeat("x", 129), false, "129 characters"},
	{"", false, "empty"},
	{".", false, "the path segment ."},
	{"..", false, "the path segment .."},
	{"my score", false, "a space"},
	{"my/score", false, "a slash"},
	{"partitur-é", false, "a non-ASCII letter"},
	{"4f0c3c1e-9d2b-4c4e-8a59-0a1b2c3d4e5f", false, "a hyphenated UUID"},
	{"4F0C3C1E-9D2B-4C4E-8A59-0A1B2C3D4E5F", false, "an upper-case UUID"},
	{"4f0c3c1e9d2b4c4e8a590a1b2c3d4e5f", false, "a UUID as 32 hex digits"},
	{"urn:uuid:4f0c3c1e-9d2b-4c4e-8a59-0a1b2c3d4e5f", false, "a UUID URN (and ':' is outside the alphabet)"},
	{"{4f0c3c1e-9d2b-4c4e-8a59-0a1b2c3d4e5f}", false, "a UUID in braces (outside the alphabet)"},
}

// ServerAddresses are values of serverN (a server's address in the external
// authentication settings): a host name of RFC 1123 labels with dots between them,
// or an IPv4 or IPv6 address, with no scheme, port, path or spaces. Brackets are
// URI syntax (RFC 3986 §3.2.2), not part of an address: the platform refuses them,
// and the provider sends the address alone (ServerAddressSpellings).
var ServerAddresses = []Value{
	{"dc1.corp.example", true, "a host name"},
	{"dc1", true, "a single label"},
	{"DC-01.Corp.Example", true, "upper case and a hyphen"},
	{"10.0.0.9", true, "IPv4"},
	{"2001:db8::10", true, "IPv6"},
	{"FD00:0::10", true, "IPv6 in upper case, with a zero group"},
	{"3com.example", true, "a label starting with a digit (RFC 1123)"},
	{strings.Repeat("a", 63) + ".example", true, "a 63-character label"},
	{strings.Repeat("a", 64) + ".example", false, "a 64-character label"},
	{"ldap://dc1:389", false, "a scheme and a port"},
	{"dc1:389", false, "a port"},
	{"dc1.corp.example/ldap", false, "a path"},
	{"dc1 .corp", false, "a space"},
	{" dc1", false, "a leading space"},
	{"dc1..corp", false, "an empty label"},
	{".dc1", false, "a leading dot"},
	{"dc1.", false, "a trailing dot (dots go between labels)"},
	{"-dc1.corp", false, "a label starting with a hyphen"},
	{"dc1-.corp", false, "a label ending with a hyphen"},
	{"dc_1.corp", false, "an underscore (not in RFC 1123 labels)"},
	{"[2001:db8::10]", false, "an IPv6 address in the brackets of its URI form (URI syntax, not an address)"},
	{"[2001:db8::10]:389", false, "an IPv6 address in brackets with a port"},
	{"[10.0.0.9]", false, "an IPv4 address in brackets"},
	{"[dc1.corp]", false, "a host name in brackets"},
	{"fe80::1%eth0", false, "an IPv6 zone"},
	{"dc1.corp.exämple", false, "a non-ASCII letter"},
	{"", false, "empty"},
}

// Spelling is a value the provider accepts in an attribute although the platform
// does not take it as written, since the provider sends it as Sent.
type Spelling struct {
	Value, Sent, Why string
}

// ServerAddressSpellings are the server addresses the provider accepts beyond
// ServerAddresses (the attribute address of mediaplatform_external_authentication),
// each with the address it sends, which ServerAddresses lists as valid.
var ServerAddressSpellings = []Spelling{
	{"[2001:db8::10]", "2001:db8::10", "an IPv6 address in the brackets of its URI form, as copied from a URL"},
	{"[FD00:0::10]", "FD00:0::10", "upper case and a zero group, in brackets"},
}

// LicenseStrings are values of settings.licenseString (a view's license_string):
// at most 1024 characters, counted as Unicode code points.
var LicenseStrings = []Value{
	{"", true, "empty"},
	{strings.Repeat("x", 1024), true, "1024 ASCII characters"},
	{strings.Repeat("é", 600), true, "600 é (1200 bytes)"},
	{strings.Repeat("é", 1024), true, "1024 é (2048 bytes)"},
	{strings.Repeat("😀", 1024), true, "1024 emoji (4096 bytes)"},
	{strings.Repeat("x", 1025), false, "1025 characters"},
	{strings.Repeat("é", 1025), false, "1025 é"},
}
