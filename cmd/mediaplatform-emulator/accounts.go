package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// accountsFile is the JSON of -accounts: the users and OAuth clients.
type accountsFile struct {
	Users   []emulator.User        `json:"users"`
	Clients []emulator.OAuthClient `json:"clients"`
}

// readAccounts reads -accounts. Every user needs a name, a password and at least one
// kind of access; every client an id and a secret; names are unique.
func readAccounts(path string) ([]emulator.User, []emulator.OAuthClient, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var f accountsFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, nil, fmt.Errorf("-accounts %s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, u := range f.Users {
		switch {
		case u.Name == "" || u.Password == "":
			return nil, nil, fmt.Errorf("-accounts %s: user %d needs a name and a password", path, i)
		case !u.AdminLogin && !u.Platform:
			return nil, nil, fmt.Errorf("-accounts %s: user %q has neither adminLogin nor platform access", path, u.Name)
		case seen[u.Name]:
			return nil, nil, fmt.Errorf("-accounts %s: user %q is listed twice", path, u.Name)
		}
		seen[u.Name] = true
	}
	for i, c := range f.Clients {
		if c.ID == "" || c.Secret == "" || strings.Contains(c.ID, ":") {
			return nil, nil, fmt.Errorf("-accounts %s: client %d needs an id (without ':') and a secret", path, i)
		}
	}
	if len(f.Users) == 0 && len(f.Clients) == 0 {
		return nil, nil, fmt.Errorf("-accounts %s: no users and no clients", path)
	}
	return f.Users, f.Clients, nil
}

// accountLines describe the accounts for the banner.
func accountLines(opts emulator.Options) []string {
	var lines []string
	for _, u := range opts.Users {
		var access []string
		switch {
		case u.AdminLogin && u.Administrator:
			access = append(access, "admin API administrator")
		case u.AdminLogin:
			access = append(access, "admin API without administrator rights (403 on /externalauth)")
		}
		switch {
		case u.Platform && u.PlatformAdmin:
			access = append(access, "platform administrator role")
		case u.Platform:
			access = append(access, "platform regular user")
		}
		lines = append(lines, fmt.Sprintf("  user %-24s %s", u.Name+" / "+u.Password, strings.Join(access, "; ")))
	}
	for _, c := range opts.Clients {
		lines = append(lines, fmt.Sprintf("  OAuth client %-16s", c.ID+" / "+c.Secret))
	}
	return lines
}

// envSettings are the MEDIAPLATFORM_* settings of the emulator's accounts: the first
// administrator of the admin API, the first platform user and the first OAuth client
// (the addresses are added once the listener is known).
func envSettings(opts emulator.Options) [][2]string {
	var out [][2]string
	for _, u := range opts.Users {
		if u.AdminLogin && u.Administrator {
			out = append(out, [2]string{"MEDIAPLATFORM_ADMIN_USERNAME", u.Name}, [2]string{"MEDIAPLATFORM_ADMIN_PASSWORD", u.Password})
			break
		}
	}
	if len(opts.Clients) > 0 {
		out = append(out, [2]string{"MEDIAPLATFORM_CLIENT_ID", opts.Clients[0].ID},
			[2]string{"MEDIAPLATFORM_CLIENT_SECRET", opts.Clients[0].Secret})
	}
	for _, u := range opts.Users {
		if u.Platform {
			out = append(out, [2]string{"MEDIAPLATFORM_USERNAME", u.Name}, [2]string{"MEDIAPLATFORM_PASSWORD", u.Password})
			break
		}
	}
	return out
}

// plainValue is what -env-file writes without quoting: a shell sourcing the file and
// $GITHUB_ENV read it the same.
var plainValue = regexp.MustCompile(`^[A-Za-z0-9._~:/@%+,=-]*$`)

// writeEnvFile writes the settings of the emulator at base to path, whole or not at
// all (a temporary file renamed into place), so that a reader never sees half.
func writeEnvFile(path string, emu *emulator.Emulator, base string, settings [][2]string) error {
	// publishing_url holds ';' (its matrix parameters), which a shell would read as the
	// end of a command: the provider derives it from admin_url and publishing_service.
	lines := [][2]string{
		{"MEDIAPLATFORM_ADMIN_URL", emu.AdminURL(base)},
		{"MEDIAPLATFORM_PLATFORM_URL", emu.PlatformURL(base)},
		{"MEDIAPLATFORM_PUBLISHING_SERVICE", emu.Options().PublishingService},
	}
	var b strings.Builder
	for _, kv := range append(lines, settings...) {
		if !plainValue.MatchString(kv[1]) {
			return fmt.Errorf("-env-file: the value of %s holds characters a shell would interpret; choose account "+
				"names and passwords of letters, digits and ._~:/@%%+,=-", kv[0])
		}
		fmt.Fprintf(&b, "%s=%s\n", kv[0], kv[1])
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("-env-file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("-env-file: %w", err)
	}
	return nil
}
