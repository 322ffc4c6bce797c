package client

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// runConcurrently runs call(0) to call(n-1) at once, each in its own
// goroutine, and fails the test with the first error once all have returned.
func runConcurrently(t *testing.T, n int, call func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- call(i)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestNewContactsNothingAndReportsMissingSettings(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	full := f.config()
	ctx := context.Background()

	cases := []struct {
		name    string
		mutate  func(*Config)
		call    func(*Client) error
		setting string
		env     string
	}{
		{"admin_url", func(c *Config) { c.AdminURL = "" }, func(c *Client) error { _, err := c.GetExternalAuthentication(ctx); return err }, "admin_url", EnvAdminURL},
		{"admin_username", func(c *Config) { c.AdminUsername = "" }, func(c *Client) error { _, err := c.CheckSession(ctx); return err }, "admin_username", EnvAdminUsername},
		{"admin_password", func(c *Config) { c.AdminPassword = "" }, func(c *Client) error {
			_, err := c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "X"})
			return err
		}, "admin_password", EnvAdminPassword},
		{"platform_url", func(c *Config) { c.PlatformURL = "" }, func(c *Client) error { _, err := c.Systems(ctx); return err }, "platform_url", EnvPlatformURL},
		{"username", func(c *Config) { c.Username = "" }, func(c *Client) error { _, err := c.GetScore(ctx, "x"); return err }, "username", EnvUsername},
		{"password", func(c *Config) { c.Password = "" }, func(c *Client) error { _, err := c.GetCommand(ctx, "c-1"); return err }, "password", EnvPassword},
		{"client_id", func(c *Config) { c.ClientID = "" }, func(c *Client) error { _, err := c.GrantAccessToken(ctx); return err }, "client_id", EnvClientID},
		{"client_secret", func(c *Config) { c.ClientSecret = "" }, func(c *Client) error { _, err := c.Health(ctx); return err }, "client_secret", EnvClientSecret},
		{"publishing_url", func(c *Config) { c.AdminURL = "" }, func(c *Client) error { _, err := c.GetScore(ctx, "x"); return err }, "publishing_url", EnvPublishingURL},
	}
	for _, tc := range cases {
		cfg := full
		tc.mutate(&cfg)
		c := newTestClient(t, cfg)
		err := tc.call(c)
		var missing *MissingSettingError
		if !errors.As(err, &missing) {
			t.Fatalf("%s: got %v, want *MissingSettingError", tc.name, err)
		}
		if missing.Setting != tc.setting || missing.EnvVar != tc.env {
			t.Errorf("%s: got %+v", tc.name, missing)
		}
		if !strings.Contains(err.Error(), tc.setting) || !strings.Contains(err.Error(), tc.env) {
			t.Errorf("%s: message %q does not name %s and %s", tc.name, err, tc.setting, tc.env)
		}
	}
	if n := f.total(); n != 0 {
		t.Errorf("requests made: %d, want 0", n)
	}

	// Admin calls do not need platform settings and vice versa.
	adminOnly := newTestClient(t, Config{AdminURL: full.AdminURL, AdminUsername: emulatortest.AdminUsername, AdminPassword: emulatortest.AdminPassword})
	if _, err := adminOnly.CheckSession(ctx); err != nil {
		t.Errorf("admin-only client: %v", err)
	}
}

func TestNewRejectsBadSettings(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{CACertPEM: "not a certificate"}); err == nil || !strings.Contains(err.Error(), "ca_cert_pem") {
		t.Errorf("bad CA: got %v", err)
	}
	if _, err := New(Config{AdminURL: "ftp://x"}); err == nil || !strings.Contains(err.Error(), "admin_url") {
		t.Errorf("bad admin_url: got %v", err)
	}
	c, err := New(Config{})
	if err != nil {
		t.Fatalf("empty config: %v", err)
	}
	if c.cfg.RequestTimeout != 30*time.Second || c.cfg.MaxRetries != 4 || c.cfg.PublishingService != "media.publishing" {
		t.Errorf("defaults: %+v", c.cfg)
	}
	if c.userAgent != "terraform-provider-mediaplatform/dev" {
		t.Errorf("user agent %q", c.userAgent)
	}
	c, _ = New(Config{MaxRetries: NoRetries})
	if c.cfg.MaxRetries != 0 {
		t.Errorf("NoRetries: MaxRetries %d", c.cfg.MaxRetries)
	}
}

func TestAddressDerivation(t *testing.T) {
	t.Parallel()
	c, _ := New(Config{AdminURL: "https://h.example/api/v1/", PlatformURL: "https://p.example/"})
	if got, _ := c.PublishingURL(); got != "https://h.example/api/v1/apis/media.publishing;version=2;realm=global" {
		t.Errorf("derived publishing URL %q", got)
	}
	if got, _ := c.RegistryURL(); got != "https://p.example/apis/registry;version=0/serviceroots" {
		t.Errorf("registry URL %q", got)
	}
	c, _ = New(Config{AdminURL: "https://h.example/api/v1", PublishingService: "other.svc"})
	if got, _ := c.PublishingURL(); got != "https://h.example/api/v1/apis/other.svc;version=2;realm=global" {
		t.Errorf("custom service %q", got)
	}
	c, _ = New(Config{AdminURL: "https://h.example/api/v1", PublishingURL: "https://pub.example/x;version=2", RegistryURL: "https://r.example/reg"})
	if got, _ := c.PublishingURL(); got != "https://pub.example/x;version=2" {
		t.Errorf("explicit publishing URL %q", got)
	}
	if got, _ := c.RegistryURL(); got != "https://r.example/reg" {
		t.Errorf("explicit registry URL %q", got)
	}
}

type backgroundKey struct{}

// TestBackgroundContext: work shared by many calls runs in the background context
// when one is set (its values, not its cancellation), else in the starting call's,
// never cancelled with it.
func TestBackgroundContext(t *testing.T) {
	c, err := New(Config{PlatformURL: "https://platform.example"})
	if err != nil {
		t.Fatal(err)
	}
	call, cancel := context.WithCancel(context.WithValue(context.Background(), backgroundKey{}, "call"))
	cancel()
	if got := c.detached(call); got.Value(backgroundKey{}) != "call" || got.Err() != nil {
		t.Errorf("without a background context: value %v, err %v; want the call's value, not its cancellation", got.Value(backgroundKey{}), got.Err())
	}
	bg, cancelBg := context.WithCancel(context.WithValue(context.Background(), backgroundKey{}, "configuration"))
	cancelBg()
	c.SetBackground(bg)
	if got := c.detached(call); got.Value(backgroundKey{}) != "configuration" || got.Err() != nil {
		t.Errorf("with a background context: value %v, err %v; want its value, never cancelled", got.Value(backgroundKey{}), got.Err())
	}
}

// TestCheckSettingsDefersUnknownValues: a setting the configuration only knows after
// apply, or one that stands in for the missing one, is not reported at plan time.
func TestCheckSettingsDefersUnknownValues(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		cfg  Config
		area Area
		want string // the setting reported, "" for none
	}{
		"password missing":          {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", PublishingURL: "https://h/p"}, AreaPublishing, "password"},
		"password deferred":         {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", PublishingURL: "https://h/p", Deferred: map[string]bool{"password": true}}, AreaPublishing, ""},
		"admin_url deferred":        {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", Password: "p", Deferred: map[string]bool{"admin_url": true}}, AreaPublishing, ""},
		"basic_token deferred":      {Config{PlatformURL: "https://h", Username: "u", Password: "p", PublishingURL: "https://h/p", Deferred: map[string]bool{"basic_token": true}}, AreaPlatform, ""},
		"admin password missing":    {Config{AdminURL: "https://h/api/v1", AdminUsername: "admin"}, AreaAdmin, "admin_password"},
		"publishing address absent": {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", Password: "p"}, AreaPublishing, "publishing_url"},
	} {
		c, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = c.CheckSettings(tc.area)
		var missing *MissingSettingError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want nothing reported", name, err)
		case tc.want != "" && (!errors.As(err, &missing) || missing.Setting != tc.want):
			t.Errorf("%s: got %v, want %s reported", name, err, tc.want)
		}
	}
}
