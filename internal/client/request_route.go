package client

// The route of a request: where it goes, built once (routeOf) for sending it and for
// the errors that name its address, and the setting that names an address (settingFor).

import (
	"context"
	"net/url"
	"strings"
)

// route is where a request goes.
type route struct {
	url *url.URL
	// platform is set for one of the platform's hosts: only they get credentials, the
	// access headers and the client certificate.
	platform bool
	// setting is the provider setting whose address u is ("" when none).
	setting string
	// proxy is host:port of the forward proxy the request goes through, and proxyVar the
	// environment variable that names it; both "" for a direct connection.
	proxy, proxyVar string
}

// routeOf is the route of a request to u.
func (c *Client) routeOf(u *url.URL) route {
	rt := route{url: u, platform: hostIn(u, c.platformHosts()), setting: c.settingFor(u)}
	rt.proxy, rt.proxyVar = c.proxyFor(u)
	return rt
}

// context marks ctx for a request on rt to one of the platform's hosts: the TLS
// handshake of its connection presents the client certificate.
func (rt route) context(ctx context.Context) context.Context {
	if !rt.platform {
		return ctx
	}
	return context.WithValue(ctx, platformRequestKey{}, true)
}

// mustParse parses an address already checked by New.
func mustParse(address string) *url.URL {
	u, err := url.Parse(address)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// publishingService is the service name in the derived publishing address.
func (c *Client) publishingService() string {
	if c.cfg.PublishingService != "" {
		return c.cfg.PublishingService
	}
	return DefaultPublishingService
}

// publishingSetting names the setting the publishing address came from.
func (c *Client) publishingSetting() string {
	if c.cfg.PublishingURL == "" {
		return "admin_url (with publishing_service)"
	}
	return "publishing_url"
}

// settingFor names the provider setting whose address has u's scheme and host. An
// address derived from admin_url is admin_url's: publishing_url is named only when set.
func (c *Client) settingFor(u *url.URL) string {
	publishing := c.cfg.PublishingURL
	for _, s := range []struct{ name, value string }{
		{"publishing_url", publishing}, {"admin_url", c.cfg.AdminURL},
		{"platform_url", c.cfg.PlatformURL}, {"registry_url", c.cfg.RegistryURL},
	} {
		if s.value != "" && hostIn(u, []string{s.value}) && underAddress(u, s.value) {
			return s.name
		}
	}
	for _, s := range []struct{ name, value string }{
		{"platform_url", c.cfg.PlatformURL}, {"admin_url", c.cfg.AdminURL}, {"publishing_url", publishing},
	} {
		if s.value != "" && hostIn(u, []string{s.value}) {
			return s.name
		}
	}
	return ""
}

// underAddress reports whether u lies under the address base: the same URI up to the
// end of base's path, compared by RFC 3986 equivalence (EquivalentURLs, with hosts by
// HostKey), and ending there or at a segment's or a parameter's boundary.
func underAddress(u *url.URL, base string) bool {
	nu, _ := NormalURL(u.String())
	nb, _ := NormalURL(strings.TrimRight(base, "/"))
	rest, ok := strings.CutPrefix(nu, nb)
	return ok && (rest == "" || strings.ContainsRune("/;?#", rune(rest[0])))
}
