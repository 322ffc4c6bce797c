package client

// The fuzz target of config.go: the settings as the environment gives them (ApplyEnv)
// and as New checks them.

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
)

// fuzzSecret stands for a password written into an address's user information.
const fuzzSecret = "s3cr3t-fuzz"

// FuzzConfig fuzzes the settings New checks, given by their environment variables:
// the four addresses, the publishing service, render_wait, refresh_strategy and
// platform_hosts. New takes them or refuses one with a *SettingError, within a second;
// a password in an address's user information never shows in the error.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{"https://platform.example", "http://127.0.0.1:8080/api/v1", "https://user:" + fuzzSecret + "@platform.example/",
		"ftp://user:" + fuzzSecret + "@platform.example/", "https://user:" + fuzzSecret + "@ho st/", "https://:443", "platform.example",
		"http://[::1", "https://host/%zz", "", "shared", "individual", "auto", "a.example, https://b.example:8443"} {
		f.Add(uint8(0), s)
		f.Add(uint8(5), s)
	}
	envs := []string{EnvAdminURL, EnvPlatformURL, EnvPublishingURL, EnvRegistryURL, EnvPublishingService, EnvRenderWait,
		EnvRefreshStrategy, EnvPlatformHosts}
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		env := envs[int(which)%len(envs)]
		var c *Client
		var err error
		within(t, "New", value, func() {
			var cfg Config
			cfg.ApplyEnv(func(name string) string {
				switch name {
				case env:
					return value
				case EnvPlatformURL:
					return "https://platform.example"
				}
				return ""
			})
			c, err = New(cfg)
		})
		if err == nil {
			_ = c.Close(context.Background())
			return
		}
		var setting *SettingError
		if !errors.As(err, &setting) {
			t.Fatalf("%s=%q is refused without naming the setting: %v", env, value, err)
		}
		address := int(which)%len(envs) < 4
		if u, perr := url.Parse(value); address && perr == nil && u.User != nil && strings.Count(value, fuzzSecret) == 1 &&
			strings.Contains(u.User.String(), fuzzSecret) && strings.Contains(err.Error(), fuzzSecret) {
			t.Fatalf("the error shows the password of the address: %v", err)
		}
	})
}
