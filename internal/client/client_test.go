package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
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

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvAdminURL: "https://env/api/v1", EnvPassword: "env-pass", EnvPublishingService: "svc"}
	cfg := Config{AdminURL: "https://config/api/v1"}
	cfg.ApplyEnv(func(k string) string { return env[k] })
	if cfg.AdminURL != "https://config/api/v1" || cfg.Password != "env-pass" || cfg.PublishingService != "svc" {
		t.Errorf("ApplyEnv: %+v", cfg)
	}
}

func TestCloseReleasesCredentials(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	// A platform without a service registry (404, as the platform answers an address
	// it does not serve).
	f.proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: "^/apis/registry", Respond: &faultproxy.Answer{Status: http.StatusNotFound,
		Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body:   `{"code":"registry/NOT_FOUND","message":"no route","status":404,"params":{}}`}})
	c, err := New(f.config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CheckSession(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Systems(ctx); err == nil {
		t.Fatal("fake has no registry; want an error")
	}
	if st := f.Emulator.Stats(); st.LiveTokens != 1 || st.LiveSessions != 1 {
		t.Fatalf("live tokens %d sessions %d", st.LiveTokens, st.LiveSessions)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if st := f.Emulator.Stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Errorf("after Close: live tokens %d sessions %d", st.LiveTokens, st.LiveSessions)
	}
	if f.count(routeAdminLogout) != 1 || f.count(routeTokenRemove) != 1 {
		t.Errorf("logout %d removal %d", f.count(routeAdminLogout), f.count(routeTokenRemove))
	}
	if _, err := c.CheckSession(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	// Closing a client that never logged in makes no request.
	before := f.total()
	c2, _ := New(f.config())
	if err := c2.Close(ctx); err != nil || f.total() != before {
		t.Errorf("idle Close: %v, %d requests", err, f.total()-before)
	}
}

func TestErrorPredicatesThroughWrapping(t *testing.T) {
	t.Parallel()
	for status, pred := range map[int]func(error) bool{404: IsNotFound, 409: IsConflict, 401: IsUnauthorized, 403: IsForbidden} {
		err := fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", &APIError{Status: status}))
		if !pred(err) {
			t.Errorf("%d not recognised through wrapping", status)
		}
		if pred(errors.New("plain")) || pred(nil) {
			t.Errorf("%d: false positive", status)
		}
	}
	e := &APIError{Status: 404, Code: "publishing/NOT_FOUND", Message: "score 'x' does not exist", Method: "GET", Path: "/scores/x"}
	if e.Error() != "GET /scores/x: HTTP 404 publishing/NOT_FOUND: score 'x' does not exist" || e.Name() != "NOT_FOUND" {
		t.Errorf("message %q name %q", e.Error(), e.Name())
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
