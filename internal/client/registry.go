package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	stduritemplate "github.com/std-uritemplate/std-uritemplate/go/v2"
)

// Registry link relations used by the client.
const (
	relSystemModel      = "datamodel:system-model"
	relAssetModelByID   = "datamodel:asset-model-by-id"
	relAssetModelByType = "datamodel:asset-model-by-type"
	relCommandByID      = "command:command-by-id"
)

// System identifies one system known to the service registry.
type System struct {
	SystemType string `json:"systemType"`
	SystemID   string `json:"systemID"`
}

// registryEntry is one resource of the service registry.
type registryEntry struct {
	Href      string   `json:"href"`
	Templated bool     `json:"templated"`
	Systems   []System `json:"systems"`
}

// serviceRoots is the service registry document.
type serviceRoots struct {
	resources map[string]oneOrMany[registryEntry]
	url       *url.URL
}

// serviceRoots reads the service registry once per client (concurrent first
// callers share one request; a failure is not cached).
func (c *Client) serviceRoots(ctx context.Context) (*serviceRoots, error) {
	regURL, err := c.RegistryURL()
	if err != nil {
		return nil, err
	}
	return c.registry.get(ctx, once(func(ctx context.Context) (*serviceRoots, error) {
		var doc struct {
			Resources map[string]oneOrMany[registryEntry] `json:"resources"`
		}
		resp, err := c.do(ctx, &request{method: http.MethodGet, url: regURL, auth: authPlatform}, &doc)
		if err != nil {
			// The registry always answers at its address: a 404 there is a wrong address.
			setting := "registry_url"
			if c.cfg.RegistryURL == "" {
				setting = "platform_url (with the registry's path)"
			}
			path := ""
			if u, perr := url.Parse(regURL); perr == nil {
				path = pathOf(u)
			}
			return nil, fmt.Errorf("reading the service registry: %w", c.addressError(setting, regURL, path, err))
		}
		return &serviceRoots{resources: doc.Resources, url: resp.url}, nil
	}))
}

// expand returns the address of registry resource rel with vars expanded
// (RFC 6570; empty values are left out). When several entries serve rel, the
// one listing the requested system is preferred.
func (c *Client) expand(ctx context.Context, rel string, vars map[string]string) (string, error) {
	roots, err := c.serviceRoots(ctx)
	if err != nil {
		return "", err
	}
	entries := roots.resources[rel]
	if len(entries) == 0 {
		return "", fmt.Errorf("the service registry has no %s resource", rel)
	}
	entry := entries[0]
	if st, sid := vars["systemType"], vars["systemID"]; st != "" && len(entries) > 1 {
	search:
		for _, e := range entries {
			for _, s := range e.Systems {
				if s.SystemType == st && s.SystemID == sid {
					entry = e
					break search
				}
			}
		}
	}
	// RFC 6570: a value's non-ASCII characters are percent-encoded as UTF-8 bytes
	// (clip-ü is clip-%C3%BC), which this library does and the one used before did not.
	values := stduritemplate.Substitutions{}
	for k, v := range vars {
		if v != "" {
			values[k] = v
		}
	}
	href, err := stduritemplate.Expand(entry.Href, values)
	if err != nil {
		return "", fmt.Errorf("expanding the service registry's %s href: %w", rel, err)
	}
	return resolveHref(roots.url, href)
}

// Systems lists the systems that serve system models, from the registry's
// datamodel:system-model entries (their union, without duplicates).
func (c *Client) Systems(ctx context.Context) ([]System, error) {
	roots, err := c.serviceRoots(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[System]bool{}
	systems := []System{}
	for _, e := range roots.resources[relSystemModel] {
		for _, s := range e.Systems {
			if !seen[s] {
				seen[s] = true
				systems = append(systems, s)
			}
		}
	}
	return systems, nil
}
