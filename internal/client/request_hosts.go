package client

// Which hosts are the platform's own: only they get credentials, the access headers and
// the client certificate (platformHosts, viaPlatformHosts, hostIn, sameHost), and a
// link of an answer resolved against them (platformHref).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// platformHosts are the addresses of the platform's own hosts: where credentials,
// the client certificate and the request headers may go.
func (c *Client) platformHosts() []string {
	publishing, _ := c.PublishingURL()
	hosts := []string{c.cfg.AdminURL, c.cfg.PlatformURL, publishing, c.cfg.RegistryURL}
	for _, h := range c.cfg.PlatformHosts {
		if strings.Contains(h, "://") { // a host of the platform's own, reached as written
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// ParsePlatformHosts reads MEDIAPLATFORM_PLATFORM_HOSTS: entries separated by commas,
// spaces around them and empty ones dropped.
func ParsePlatformHosts(text string) []string {
	var hosts []string
	for _, h := range strings.Split(text, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// PlatformHostProblem says what is wrong with an entry of platform_hosts, or "": a
// host[:port] (another name of the platform), or scheme://host[:port] (a host of the
// platform's own), with nothing else.
func PlatformHostProblem(entry string) string {
	text := entry
	if !strings.Contains(entry, "://") {
		text = "http://" + entry
	}
	u, err := url.Parse(text)
	switch {
	case err != nil || u.Host == "" || u.Hostname() == "":
		return fmt.Sprintf("%q is not a host name or address with an optional port (host, host:port, [::1]:8443)", entry)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q has the scheme %s; only http and https are the platform's", entry, u.Scheme)
	case u.User != nil:
		return fmt.Sprintf("%q carries a user name or password; give the host alone", entry)
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "":
		return fmt.Sprintf("%q has a path, query or fragment; give the host alone (host or host:port)", entry)
	case u.Port() != "" && strings.Trim(u.Port(), "0123456789") != "":
		return fmt.Sprintf("%q has a port that is not a number", entry)
	}
	return ""
}

// viaPlatformHosts returns where a request for u goes when u names a host of
// platform_hosts, and whether it does: at platform_url's address (its scheme, host and
// port; the path and query of u) for another name of the platform (host[:port], a port
// left out being the scheme's default), so that a name this machine cannot reach
// still leads to the platform; as written for a host given with its scheme. Every
// other host is named by no one: nothing is sent there.
func (c *Client) viaPlatformHosts(u *url.URL) (*url.URL, bool) {
	for _, h := range c.cfg.PlatformHosts {
		if strings.Contains(h, "://") {
			if hostIn(u, []string{h}) {
				return u, true
			}
			continue
		}
		named := &url.URL{Scheme: u.Scheme, Host: h}
		if hostKey(named) != hostKey(u) {
			continue
		}
		platform, err := url.Parse(c.cfg.PlatformURL)
		if err != nil || platform.Host == "" {
			return nil, false
		}
		at := *u
		at.Scheme, at.Host = platform.Scheme, platform.Host
		return &at, true
	}
	return nil, false
}

// hostIn reports whether u has the scheme and host of one of the addresses.
func hostIn(u *url.URL, addresses []string) bool {
	for _, a := range addresses {
		if a == "" {
			continue
		}
		p, err := url.Parse(a)
		if err == nil && sameHost(p, u) {
			return true
		}
	}
	return false
}

// sameHost reports whether a and b name one scheme, host and port, however each is
// spelt: host names compare without case and without a final dot, IP addresses by
// value ([::1] is [0:0:0:0:0:0:0:1], an IPv4-mapped address its IPv4 one), and a port
// left out is the scheme's default.
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && hostKey(a) == hostKey(b)
}

// hostKey is u's host and port in one spelling for every spelling sameHost takes as
// one: the key of what is learned by host (the platform's clock).
func hostKey(u *url.URL) string {
	return net.JoinHostPort(HostKey(u.Hostname()), portOf(u))
}

// portOf is u's port, or its scheme's default.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return strings.TrimLeft(p, "0")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// platformHref resolves href against platform_url and checks that it points
// at the platform, so that the access token is never sent elsewhere.
func (c *Client) platformHref(ctx context.Context, href string) (string, error) {
	if href == "" {
		return "", errors.New("no href given")
	}
	if c.cfg.PlatformURL == "" {
		return "", &MissingSettingError{Setting: "platform_url", EnvVar: EnvPlatformURL}
	}
	base, err := url.Parse(c.cfg.PlatformURL)
	if err != nil {
		return "", fmt.Errorf("invalid platform_url: %w", err)
	}
	ref, err := url.Parse(href)
	if err != nil {
		return "", fmt.Errorf("invalid href %q: %w", href, err)
	}
	u := base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("href %q is not an http or https address", href)
	}
	trusted := []string{c.cfg.PlatformURL, c.cfg.RegistryURL}
	if at, ok := c.viaPlatformHosts(u); ok && !hostIn(u, trusted) {
		return at.String(), nil
	}
	if !hostIn(u, trusted) {
		// Services listed by the registry may live on other hosts.
		if roots, err := c.serviceRoots(ctx); err == nil {
			for _, entries := range roots.resources {
				for _, e := range entries {
					trusted = append(trusted, e.Href)
				}
			}
		}
		if !hostIn(u, trusted) {
			return "", fmt.Errorf("href %q does not point at the platform (%s); refusing to send the access token there", href, base.Host)
		}
	}
	return u.String(), nil
}
