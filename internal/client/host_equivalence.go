package client

// Host equivalence, one rule for every place a host is compared: the hosts of the
// requests and the settings they are blamed on (request_hosts.go, request_route.go), a
// score address's host (url_equivalence.go) and a settings server's address (the
// provider's address type). A host the platform writes back in another spelling names
// the same server: DNS names compare without case (RFC 4343) and a final dot names the
// root the name already ends at (RFC 1034 §3.1); an IP address is its value, however
// written (RFC 5952), an IPv4-mapped IPv6 address being its IPv4 one.

import (
	"net/netip"
	"strings"
)

// HostKey is host (a name, an IP address, or an IPv6 address in URI brackets) in the
// one spelling shared by every spelling that names the same host: a name in lower
// case without its final dots, an IP address in RFC 5952 form (IPv4-mapped as IPv4, a
// zone kept). Anything that is neither is only lower-cased.
func HostKey(host string) string {
	h := host
	if inner, ok := strings.CutPrefix(h, "["); ok {
		if inner, ok := strings.CutSuffix(inner, "]"); ok {
			if ip, err := netip.ParseAddr(inner); err == nil && ip.Is6() {
				h = inner
			}
		}
	}
	if trimmed := strings.TrimRight(h, "."); trimmed != "" {
		h = trimmed
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().String()
	}
	return strings.ToLower(h)
}

// EquivalentHosts reports whether a and b name the same host (HostKey).
func EquivalentHosts(a, b string) bool {
	return a == b || HostKey(a) == HostKey(b)
}

// uriHost is HostKey for a host inside a URI's authority: an IPv6 address keeps its
// brackets, so that the authority stays a URI's.
func uriHost(host string) string {
	k := HostKey(host)
	if ip, err := netip.ParseAddr(k); err == nil && ip.Is6() {
		return "[" + k + "]"
	}
	return k
}
