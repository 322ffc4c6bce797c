package emulator

// Section R of the contract: the service registry. Clients find the data-model and
// command resources here and expand the templates; they never build those paths.

import "net/http"

// registryPath is the address of the service registry on platform_url.
const registryPath = "/apis/registry;version=0/serviceroots"

// registryCommandTemplate is the command:command-by-id template, relative to
// platform_url; commands.go serves it.
const registryCommandTemplate = "/apis/commands;version=1;realm=global/commands/{id}"

// registryEntry is one resource of the registry: an RFC 6570 template and, for the
// data-model resources, the systems that serve it.
type registryEntry struct {
	Href      string       `json:"href"`
	Templated bool         `json:"templated"`
	Systems   []systemBase `json:"systems,omitempty"`
}

// RegistryURL returns the service registry's address for a listener at base
// (scheme://host).
func (e *Emulator) RegistryURL(base string) string {
	return e.PlatformURL(base) + registryPath
}

func (e *Emulator) routeRegistry() {
	e.handle("GET "+registryPath, e.withUser(e.handleServiceRoots))
}

func (e *Emulator) handleServiceRoots(w http.ResponseWriter, r *http.Request, _ *User) {
	base := baseURL(r)
	systems := make([]systemBase, 0, len(e.models.systems))
	for _, s := range e.models.systems {
		systems = append(systems, s.SystemModel.Base)
	}
	dataModel := func(suffix string) []registryEntry {
		return []registryEntry{{
			Href:      base + datamodelPath + "/systems/{systemType}/{systemID}" + suffix,
			Templated: true,
			Systems:   systems,
		}}
	}
	writeJSON(w, http.StatusOK, map[string]any{"resources": map[string][]registryEntry{
		"datamodel:system-model":        dataModel("/model{?insist,lang}"),
		"datamodel:asset-model-by-id":   dataModel("/assets/{assetId}/model{?lang}"),
		"datamodel:asset-model-by-type": dataModel("/asset-types/{assetType}/model{?lang}"),
		"command:command-by-id":         {{Href: base + registryCommandTemplate, Templated: true}},
	}})
}
