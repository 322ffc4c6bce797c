package client

// URL equivalence: a platform may hand an address back in another spelling of the
// same URI (RFC 3986 §6.2.2 syntax-based and §6.2.3 scheme-based normalisation: .NET's
// Uri.AbsoluteUri, WHATWG URL.href and pydantic's AnyUrl all do), so an address the
// platform echoes is compared with the one sent by equivalence, never by bytes.

import "strings"

// EquivalentURLs reports whether a and b are the same URI after RFC 3986 §6.2.2 and
// §6.2.3 normalisation: the case of the scheme and the host, the case of
// percent-encodings' hex digits, percent-encoded unreserved characters decoded, dot
// segments removed, the scheme's default port (80 for http, 443 for https) or an
// empty port left out, and an empty path read as "/" for http and https. Everything
// else (the path's, query's, fragment's and user information's case, a trailing
// slash, the order of query parameters) is compared as written. Equal strings are
// always equivalent; a string that is not a URI with a scheme is equivalent only to
// itself.
func EquivalentURLs(a, b string) bool {
	if a == b {
		return true
	}
	na, okA := NormalURL(a)
	nb, okB := NormalURL(b)
	return okA && okB && na == nb
}

// NormalURL returns s in RFC 3986 normal form (see EquivalentURLs), and false when s
// has no scheme (it is then returned as it is).
func NormalURL(s string) (string, bool) {
	// RFC 3986 Appendix B: scheme ":" ["//" authority] path ["?" query] ["#" fragment].
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || !validScheme(scheme) {
		return s, false
	}
	scheme = strings.ToLower(scheme)
	rest, fragment, hasFragment := strings.Cut(rest, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteByte(':')
	path, hasAuthority := rest, false
	if after, found := strings.CutPrefix(rest, "//"); found {
		authority := after
		path, hasAuthority = "", true
		if i := strings.IndexByte(after, '/'); i >= 0 {
			authority, path = after[:i], after[i:]
		}
		b.WriteString("//")
		b.WriteString(normalAuthority(scheme, authority))
		if path == "" && (scheme == "http" || scheme == "https") {
			path = "/"
		}
	}
	path = removeDotSegments(normalPercent(path))
	if !hasAuthority && strings.HasPrefix(path, "//") {
		path = "/." + path // RFC 3986 §5.3: not to be read as an authority
	}
	b.WriteString(path)
	if hasQuery {
		b.WriteByte('?')
		b.WriteString(normalPercent(query))
	}
	if hasFragment {
		b.WriteByte('#')
		b.WriteString(normalPercent(fragment))
	}
	return b.String(), true
}

// validScheme reports whether s is a scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// defaultPorts are the ports that §6.2.3 leaves out, by scheme.
var defaultPorts = map[string]string{"http": "80", "https": "443"}

// normalAuthority normalises [userinfo "@"] host [":" port]: the user information's
// percent-encodings, the host's case, and a default or empty port left out.
func normalAuthority(scheme, authority string) string {
	userinfo, hostport, hasUser := "", authority, false
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		userinfo, hostport, hasUser = authority[:i], authority[i+1:], true
	}
	host, port := hostport, ""
	hasPort := false
	// The port follows the last colon after an IPv6 literal's closing bracket, if any.
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && i > strings.LastIndexByte(hostport, ']') {
		host, port, hasPort = hostport[:i], hostport[i+1:], true
	}
	literal := strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") && strings.Count(host, "[") == 1 && strings.Count(host, "]") == 1
	if !allDigits(port) || !literal && strings.ContainsAny(host, ":[]") {
		return authority // not host [":" port]: compared as written
	}
	if hasPort {
		port = strings.TrimLeft(port, "0")
		if port == "" && hostport[len(host)+1:] != "" {
			port = "0"
		}
	}
	var b strings.Builder
	if hasUser {
		b.WriteString(normalPercent(userinfo))
		b.WriteByte('@')
	}
	host = lowerOutsideEscapes(normalPercent(host))
	if !strings.Contains(host, "%") {
		host = uriHost(host) // the host by HostKey: no final dot, an IP by value
	}
	b.WriteString(host)
	if hasPort && port != "" && port != defaultPorts[scheme] {
		b.WriteByte(':')
		b.WriteString(port)
	}
	return b.String()
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// normalPercent decodes percent-encoded unreserved characters (ALPHA, DIGIT, "-",
// ".", "_", "~") and writes every other percent-encoding with upper-case hex digits
// (§6.2.2.1, §6.2.2.2). A "%" not followed by two hex digits is left as it is, and
// read again should decoding have completed it ("%7%41" is "%7A", then "z"), so that
// the normal form is a fixed point.
func normalPercent(s string) string {
	for {
		n := normalPercentOnce(s)
		if n == s {
			return n
		}
		s = n
	}
}

func normalPercentOnce(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			b.WriteByte(s[i])
			continue
		}
		c := unhex(s[i+1])<<4 | unhex(s[i+2])
		if unreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(s[i+1 : i+3]))
		}
		i += 2
	}
	return b.String()
}

// lowerOutsideEscapes lower-cases s but for the hex digits of its percent-encodings.
func lowerOutsideEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteString(s[i : i+3])
			i += 2
			continue
		}
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// removeDotSegments is RFC 3986 §5.2.4's algorithm.
func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var out []string // output segments, each with its leading "/" where it had one
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			start := 0
			if in[0] == '/' {
				start = 1
			}
			end := len(in)
			if i := strings.IndexByte(in[start:], '/'); i >= 0 {
				end = start + i
			}
			out = append(out, in[:end])
			in = in[end:]
		}
	}
	return strings.Join(out, "")
}
