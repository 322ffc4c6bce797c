package client

// Forward proxies: which proxy a request goes through (and the variable that set it),
// a proxy's refusal of the tunnel to the platform, and NO_PROXY sending a request past
// the proxy.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
)

// tunnelRefusedError is a forward proxy's answer to CONNECT other than 2xx: it did not
// open the tunnel to the platform's host, so nothing reached the platform.
type tunnelRefusedError struct {
	proxy, status string
	login         bool
}

func (e *tunnelRefusedError) Error() string {
	return fmt.Sprintf("the proxy at %s refused the tunnel: %s", e.proxy, e.status)
}

// refusedTunnel is the transport's OnProxyConnectResponse: it turns a refused CONNECT,
// which net/http reports as its bare status text ("Forbidden"), into an error that
// says the proxy answered it.
func refusedTunnel(_ context.Context, proxy *url.URL, _ *http.Request, res *http.Response) error {
	if res.StatusCode >= 200 && res.StatusCode <= 299 {
		return nil
	}
	return &tunnelRefusedError{proxy: proxy.Host, status: res.Status, login: proxy.User != nil}
}

// bypassedProxy returns the NO_PROXY entry that sends a request for u past the proxy
// the environment configures for its scheme, and that proxy's variable; "" when no
// proxy is configured or NO_PROXY does not name u's host.
func bypassedProxy(u *url.URL) (entry, proxyVar string) {
	for _, name := range proxyVariables(u) {
		if os.Getenv(name) != "" {
			proxyVar = name
			break
		}
	}
	if proxyVar == "" {
		return "", ""
	}
	noProxy := os.Getenv("NO_PROXY")
	if noProxy == "" {
		noProxy = os.Getenv("no_proxy")
	}
	host, port := strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), portOf(u)
	ip, ipErr := netip.ParseAddr(host)
	for _, e := range strings.Split(noProxy, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch e {
		case "":
			continue
		case "*":
			return e, proxyVar
		}
		if prefix, err := netip.ParsePrefix(e); err == nil {
			if ipErr == nil && prefix.Contains(ip.Unmap()) {
				return e, proxyVar
			}
			continue
		}
		name := e
		if h, p, err := net.SplitHostPort(e); err == nil {
			if p != port {
				continue
			}
			name = h
		}
		name = strings.TrimPrefix(strings.TrimPrefix(name, "*"), ".")
		if a, err := netip.ParseAddr(name); err == nil {
			if ipErr == nil && a.Unmap() == ip.Unmap() {
				return e, proxyVar
			}
			continue
		}
		if host == name || strings.HasSuffix(host, "."+name) {
			return e, proxyVar
		}
	}
	return "", ""
}

// proxyFor returns host:port of the forward proxy a request to u goes through, and the
// environment variable whose value names it ("" when the proxy came from elsewhere);
// both "" for a direct connection.
func (c *Client) proxyFor(u *url.URL) (proxy, variable string) {
	if c.proxy == nil {
		return "", ""
	}
	p, err := c.proxy(&http.Request{URL: u, Header: http.Header{}})
	if err != nil || p == nil {
		return "", ""
	}
	for _, name := range proxyVariables(u) {
		if pv := proxyAddress(name); pv != nil && pv.Host == p.Host {
			return p.Host, name
		}
	}
	return p.Host, ""
}

// proxyVariables are the environment variables that name the proxy for u's scheme,
// in the order net/http reads them.
func proxyVariables(u *url.URL) []string {
	if u.Scheme == "https" {
		return []string{"HTTPS_PROXY", "https_proxy"}
	}
	return []string{"HTTP_PROXY", "http_proxy"}
}

// proxyAddress is the proxy address in the environment variable name, or nil when it
// is unset or not an address.
func proxyAddress(name string) *url.URL {
	v := os.Getenv(name)
	if v == "" {
		return nil
	}
	pv, err := url.Parse(v)
	if err != nil || pv.Host == "" { // "proxy:3128" means http://proxy:3128, as for the transport
		pv, err = url.Parse("http://" + v)
	}
	if err != nil {
		return nil
	}
	return pv
}

// proxyLogin reports whether the proxy address in the environment variable name
// carries a login.
func proxyLogin(name string) bool {
	pv := proxyAddress(name)
	return pv != nil && pv.User != nil
}
