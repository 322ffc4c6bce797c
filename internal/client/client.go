// Package client is the HTTP client for the media platform: the administrator
// API (session login and external authentication settings), the platform token
// flow (HAL discovery and the OAuth 2.0 password grant), the score publishing
// API, the service registry, commands and data models.
//
// The package knows nothing of Terraform. One Client is safe for concurrent use:
// it holds at most one administrator session and one platform access token,
// each acquired lazily by the first call that needs it and shared by every
// goroutine (single-flight). Every HTTP exchange goes through one request
// helper that retries transient failures, honours Retry-After, maps error
// bodies to *APIError and logs through the tflog subsystem "mediaplatform_client"
// without ever logging a credential, a token or a viewer URL.
//
// Call Close when the client is no longer needed: it logs the administrator
// session out and removes the platform token.
package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client talks to one platform deployment. It is safe for concurrent use. It holds
// its configuration, its transport, the caches of what it loaded once, and one field
// per mechanism, a struct owned by that mechanism's file.
type Client struct {
	cfg       Config
	userAgent string
	secrets   []string     // configuredSecrets(cfg), masked in every log
	http      *http.Client // one attempt; exchange (request.go) runs the attempts
	// proxy is the transport's choice of forward proxy for a request (nil: none).
	proxy func(*http.Request) (*url.URL, error)
	local localClock // this machine's clock, as the client waits (localclock.go)
	// connsPerHost is the transport's bound on connections per host, derived from the
	// open-files limit (connsPerHostFor, request_failure.go).
	connsPerHost int

	session   cache[string]         // administrator session token
	token     cache[*AccessToken]   // shared platform access token (tokenPolicy)
	discovery cache[*authEndpoints] // hrefs of the token flow
	registry  cache[*serviceRoots]  // service registry document

	credLoads credentialLoads  // administrator logins and token grants (request_credential.go)
	granted   tokenLedger      // the tokens Close removes (token_ledger.go)
	gate      rateGate         // holds every request back after a 429 (request_retry.go)
	clock     platformClock    // the platform's clock, learned from Date headers (clock.go)
	fallbacks fallbackLog      // the slower paths already reported at WARN (log.go)
	counting  scoreCounting    // how this platform counts (score_count.go)
	criteria  criteriaCodec    // the form of the criteria this platform takes (score_criteria.go)
	gone      scoreGone        // what confirms that a score is gone (score_delete.go)
	presence  settingsPresence // what an enabledN left out means on this platform (externalauth.go)
	refresh   scoreRefresh     // RefreshScore's choice between GETs and one listing (score_refresh.go)
	renders   renderWait       // WaitForRendering's shared reads (render_wait.go)
	calls     callScope        // the background context, the one report of an interrupt (calls.go)
	exit      exitState        // Close's once and its result (exit.go)
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("mediaplatform client is closed")

// New returns a client for cfg. It contacts nothing: every login happens on
// the first call that needs it. It fails only on settings that can never work,
// such as a malformed CA certificate or an unparsable address.
func New(cfg Config) (*Client, error) {
	cfg.trimSettings()
	switch cfg.RenderWait {
	case "", RenderWaitShared, RenderWaitIndividual:
	default:
		return nil, &SettingError{Setting: "render_wait", EnvVar: EnvRenderWait, Value: cfg.RenderWait,
			Problem: fmt.Sprintf("it must be %q or %q", RenderWaitShared, RenderWaitIndividual)}
	}
	switch cfg.RefreshStrategy {
	case "", RefreshAuto, RefreshIndividual:
	default:
		return nil, &SettingError{Setting: "refresh_strategy", EnvVar: EnvRefreshStrategy, Value: cfg.RefreshStrategy,
			Problem: fmt.Sprintf("it must be %q or %q", RefreshAuto, RefreshIndividual)}
	}
	for _, h := range cfg.PlatformHosts {
		if problem := PlatformHostProblem(h); problem != "" {
			return nil, &SettingError{Setting: "platform_hosts", EnvVar: EnvPlatformHosts, Value: h, Problem: problem}
		}
	}
	if cfg.PublishingService == "" {
		cfg.PublishingService = DefaultPublishingService
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryWaitMin <= 0 {
		cfg.RetryWaitMin = DefaultRetryWaitMin
	}
	if cfg.RetryWaitMax <= 0 {
		cfg.RetryWaitMax = DefaultRetryWaitMax
	}
	if cfg.RetryWaitMax < cfg.RetryWaitMin {
		cfg.RetryWaitMax = cfg.RetryWaitMin
	}
	for _, u := range []struct{ name, env, value string }{
		{"admin_url", EnvAdminURL, cfg.AdminURL},
		{"platform_url", EnvPlatformURL, cfg.PlatformURL},
		{"publishing_url", EnvPublishingURL, cfg.PublishingURL},
		{"registry_url", EnvRegistryURL, cfg.RegistryURL},
	} {
		if u.value == "" {
			continue
		}
		p, err := url.Parse(u.value)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, &SettingError{Setting: u.name, EnvVar: u.env, Value: addressShown(u.value),
				Problem: "it is not an absolute http or https address"}
		}
	}

	connsPerHost := connsPerHostFor(openFilesLimit())
	if cfg.connsPerHost > 0 {
		connsPerHost = cfg.connsPerHost
	}
	transport := cfg.Transport
	if transport == nil {
		t := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
		if def, ok := http.DefaultTransport.(*http.Transport); ok {
			t = def.Clone() // keeps the standard dial, TLS handshake and idle timeouts
		}
		// Many concurrent Terraform operations share one host; keep their
		// connections instead of redialling, and open no more of them than the
		// process's open-files limit allows (connsPerHostFor): beyond, a call waits
		// for a free connection.
		t.MaxConnsPerHost = connsPerHost
		t.MaxIdleConnsPerHost = min(32, connsPerHost)
		t.OnProxyConnectResponse = refusedTunnel
		tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
		if cfg.ClientCertPEM != "" || cfg.ClientKeyPEM != "" {
			pair, err := ReadClientCertificate(cfg.ClientCertPEM, cfg.ClientKeyPEM)
			if err != nil {
				return nil, err
			}
			tlsConfig.GetClientCertificate = platformOnlyCertificate(pair)
		}
		if cfg.CACertPEM != "" {
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if err := readCACertificates(pool, cfg.CACertPEM); err != nil {
				return nil, err
			}
			tlsConfig.RootCAs = pool
		}
		if cfg.InsecureSkipVerify {
			tlsConfig.InsecureSkipVerify = true //nolint:gosec // explicitly requested by the user
		}
		t.TLSClientConfig = tlsConfig
		transport = t
	}

	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	c := &Client{
		cfg:       cfg,
		userAgent: "terraform-provider-mediaplatform/" + version,
		secrets:   configuredSecrets(cfg),
		token:     cache[*AccessToken]{serve: tokenPolicy},
		local:     orRealClock(cfg.clock),
		// What the transport allows when the client made it; a transport of the
		// caller's own has its own bound.
		connsPerHost: connsPerHost,
	}
	c.gate.clk, c.renders.clk, c.refresh.clk = c.local, c.local, c.local
	if t, ok := transport.(*http.Transport); ok {
		c.proxy = t.Proxy
	}
	c.http = &http.Client{
		Transport: newStaleConnTransport(transport),
		Timeout:   cfg.RequestTimeout,
		// No redirect is followed: the answer comes back as it is and becomes a
		// *RedirectError, so no credential ever goes where a redirect points.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// adminBase returns the administrator API address or the error naming the
// first missing administrator setting.
func (c *Client) adminBase() (string, error) {
	switch {
	case c.cfg.AdminURL == "":
		return "", &MissingSettingError{Setting: "admin_url", EnvVar: EnvAdminURL}
	case c.cfg.AdminUsername == "":
		return "", &MissingSettingError{Setting: "admin_username", EnvVar: EnvAdminUsername}
	case c.cfg.AdminPassword == "":
		return "", &MissingSettingError{Setting: "admin_password", EnvVar: EnvAdminPassword}
	}
	return strings.TrimRight(c.cfg.AdminURL, "/"), nil
}

// platformBase returns the platform address after checking every setting the
// password grant needs.
func (c *Client) platformBase() (string, error) {
	switch {
	case c.cfg.PlatformURL == "":
		return "", &MissingSettingError{Setting: "platform_url", EnvVar: EnvPlatformURL}
	case c.cfg.Username == "":
		return "", &MissingSettingError{Setting: "username", EnvVar: EnvUsername}
	case c.cfg.Password == "":
		return "", &MissingSettingError{Setting: "password", EnvVar: EnvPassword}
	}
	if _, err := c.basicCredential(); err != nil {
		return "", err
	}
	return strings.TrimRight(c.cfg.PlatformURL, "/"), nil
}

// PublishingURL returns the score API address: publishing_url, or the address
// derived from admin_url and publishing_service. The matrix parameters
// ";version=2;realm=global" are kept unescaped.
func (c *Client) PublishingURL() (string, error) {
	if c.cfg.PublishingURL != "" {
		return strings.TrimRight(c.cfg.PublishingURL, "/"), nil
	}
	if c.cfg.AdminURL == "" {
		return "", &MissingSettingError{
			Setting: "publishing_url", EnvVar: EnvPublishingURL,
			Or: "admin_url", OrEnvVar: EnvAdminURL,
		}
	}
	return strings.TrimRight(c.cfg.AdminURL, "/") + "/apis/" + c.cfg.PublishingService + ";version=2;realm=global", nil
}

// RegistryURL returns the service registry address: registry_url, or the
// default address under platform_url.
func (c *Client) RegistryURL() (string, error) {
	if c.cfg.RegistryURL != "" {
		return c.cfg.RegistryURL, nil
	}
	if c.cfg.PlatformURL == "" {
		return "", &MissingSettingError{Setting: "platform_url", EnvVar: EnvPlatformURL}
	}
	return strings.TrimRight(c.cfg.PlatformURL, "/") + "/apis/registry;version=0/serviceroots", nil
}

// RequestTimeout returns the limit of one HTTP attempt (request_timeout).
func (c *Client) RequestTimeout() time.Duration { return c.cfg.RequestTimeout }

// Area is a part of the platform an object needs, for CheckSettings.
type Area int

// The areas whose settings CheckSettings checks.
const (
	AreaAdmin      Area = iota // the administrator API (admin_url and its login)
	AreaPlatform               // the token flow (platform_url, the application credential, the user)
	AreaPublishing             // the score API (publishing_url or admin_url), through the token flow
)

// CheckSettings reports the first setting that calls in area need and that is
// neither configured nor in its environment variable, without contacting
// anything: a plan can report it before an apply fails on it. Settings the
// configuration only knows after apply (Config.Deferred) are not reported.
func (c *Client) CheckSettings(area Area) error {
	var err error
	switch area {
	case AreaAdmin:
		_, err = c.adminBase()
	case AreaPlatform:
		_, err = c.platformBase()
	case AreaPublishing:
		if _, err = c.PublishingURL(); err == nil {
			_, err = c.platformBase()
		}
	}
	var missing *MissingSettingError
	if errors.As(err, &missing) && c.deferred(missing.Setting) {
		return nil
	}
	return err
}

// deferred reports whether setting, or the setting that can stand in for it, is
// only known after apply.
func (c *Client) deferred(setting string) bool {
	d := c.cfg.Deferred
	switch setting {
	case "publishing_url":
		return d[setting] || d["admin_url"] // derived from admin_url
	case "client_id", "client_secret":
		return d[setting] || d["basic_token"] // or the pre-encoded credential
	}
	return d[setting]
}

// SettingError is a provider setting whose value can never work (an address that is
// no http or https URL, an unknown refresh strategy): New refuses it.
type SettingError struct {
	// Setting is the provider argument and EnvVar its environment variable.
	Setting, EnvVar string
	// Value is the value given (addresses redacted), Problem what is wrong with it.
	Value, Problem string
}

// Error names the setting, its variable, the value and what is wrong.
func (e *SettingError) Error() string {
	return fmt.Sprintf("%s (%s) is %q: %s", e.Setting, e.EnvVar, e.Value, e.Problem)
}
