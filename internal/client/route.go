package client

// The route of a request: where it goes, built once (routeOf) for sending it and for
// the errors that name its address.

import (
	"context"
	"net/url"
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
