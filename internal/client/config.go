package client

// The client's configuration: its settings, the environment variables each can come
// from, and the defaults.

import (
	"encoding/base64"
	"net/http"
	"os"
	"strings"
	"time"
)

// Environment variables that ApplyEnv reads. Each names the provider setting
// of the same name.
const (
	EnvAdminURL          = "MEDIAPLATFORM_ADMIN_URL"
	EnvAdminUsername     = "MEDIAPLATFORM_ADMIN_USERNAME"
	EnvAdminPassword     = "MEDIAPLATFORM_ADMIN_PASSWORD"
	EnvPlatformURL       = "MEDIAPLATFORM_PLATFORM_URL"
	EnvClientID          = "MEDIAPLATFORM_CLIENT_ID"
	EnvClientSecret      = "MEDIAPLATFORM_CLIENT_SECRET"
	EnvBasicToken        = "MEDIAPLATFORM_BASIC_TOKEN"
	EnvUsername          = "MEDIAPLATFORM_USERNAME"
	EnvPassword          = "MEDIAPLATFORM_PASSWORD"
	EnvPublishingURL     = "MEDIAPLATFORM_PUBLISHING_URL"
	EnvPublishingService = "MEDIAPLATFORM_PUBLISHING_SERVICE"
	EnvRegistryURL       = "MEDIAPLATFORM_REGISTRY_URL"
	EnvRefreshStrategy   = "MEDIAPLATFORM_REFRESH_STRATEGY"
	EnvRenderWait        = "MEDIAPLATFORM_RENDER_WAIT"
	EnvCACertPEM         = "MEDIAPLATFORM_CA_CERT_PEM"
	EnvClientCertPEM     = "MEDIAPLATFORM_CLIENT_CERT_PEM"
	EnvClientKeyPEM      = "MEDIAPLATFORM_CLIENT_KEY_PEM"
	// EnvRequestHeaders holds request_headers as a JSON object of strings.
	EnvRequestHeaders = "MEDIAPLATFORM_REQUEST_HEADERS"
	// EnvPlatformHosts holds platform_hosts, comma-separated.
	EnvPlatformHosts = "MEDIAPLATFORM_PLATFORM_HOSTS"
	// EnvInsecureSkipVerify holds insecure_skip_verify, "true" or "false".
	EnvInsecureSkipVerify = "MEDIAPLATFORM_INSECURE_SKIP_VERIFY"
	// EnvRequestTimeout holds request_timeout, a duration such as "30s".
	EnvRequestTimeout = "MEDIAPLATFORM_REQUEST_TIMEOUT"
	// EnvMaxRetries holds max_retries, a whole number.
	EnvMaxRetries = "MEDIAPLATFORM_MAX_RETRIES"
)

// EnvVariables lists the environment variables of the provider's settings.
func EnvVariables() []string {
	return []string{
		EnvAdminURL, EnvAdminUsername, EnvAdminPassword, EnvPlatformURL, EnvClientID, EnvClientSecret, EnvBasicToken,
		EnvUsername, EnvPassword, EnvPublishingURL, EnvPublishingService, EnvRegistryURL, EnvRefreshStrategy, EnvRenderWait,
		EnvCACertPEM, EnvClientCertPEM, EnvClientKeyPEM, EnvRequestHeaders, EnvPlatformHosts,
		EnvInsecureSkipVerify, EnvRequestTimeout, EnvMaxRetries,
	}
}

// Defaults applied by New to zero-valued Config fields.
const (
	DefaultPublishingService = "media.publishing"
	DefaultRequestTimeout    = 30 * time.Second
	DefaultMaxRetries        = 4
	DefaultRetryWaitMin      = 200 * time.Millisecond
	DefaultRetryWaitMax      = 5 * time.Second
)

// maxAttempts bounds the attempts of one call whatever the retry policy says.
const maxAttempts = 1000

// NoRetries is the Config.MaxRetries value that disables retries (the zero
// value selects DefaultMaxRetries).
const NoRetries = -1

// Config holds the provider settings. Empty fields are allowed: a setting is
// only checked when a call needs it, and its absence is then reported as a
// *MissingSettingError.
type Config struct {
	// AdminURL is the administrator API base address (spec {base_url}), e.g.
	// https://host/api/v1.
	AdminURL string
	// AdminUsername and AdminPassword log in to the administrator API.
	AdminUsername string
	AdminPassword string

	// PlatformURL is the platform host (spec {platform_host}) serving the token
	// flow, the registry, commands and data models.
	PlatformURL string
	// ClientID and ClientSecret form the application's basic credential for
	// the password grant. BasicToken is the same credential pre-encoded
	// (base64 of "id:secret"); it conflicts with ClientID/ClientSecret.
	ClientID     string
	ClientSecret string
	BasicToken   string
	// Username and Password are the platform user of the password grant.
	Username string
	Password string

	// PublishingURL is the full score API address. When empty it is derived
	// from AdminURL as {AdminURL}/apis/{PublishingService};version=2;realm=global.
	PublishingURL string
	// PublishingService is the publishing service name (default
	// DefaultPublishingService).
	PublishingService string
	// RegistryURL overrides the service registry address (default
	// {PlatformURL}/apis/registry;version=0/serviceroots).
	RegistryURL string
	// PlatformHosts are the platform's other names, where its documents' links may
	// lead (see PlatformHostProblem for their form): host[:port], another name of the
	// platform, reached at PlatformURL's address; scheme://host[:port], a host of the
	// platform's own (a token service), reached as written. No other host gets a
	// credential.
	PlatformHosts []string

	// CACertPEM adds PEM-encoded CA certificates to the system roots.
	CACertPEM string
	// ClientCertPEM and ClientKeyPEM are a client certificate and its private key
	// (PEM), presented in the TLS handshake with the platform's hosts, and no other,
	// when the server asks for one (a gateway demanding mutual TLS).
	ClientCertPEM, ClientKeyPEM string
	// RequestHeaders are sent with every request to the platform's hosts, and to no
	// other host (a gateway's access token or API key). Their values are secrets.
	RequestHeaders map[string]string
	// InsecureSkipVerify disables TLS certificate verification.
	InsecureSkipVerify bool

	// RequestTimeout bounds every single HTTP attempt (default
	// DefaultRequestTimeout).
	RequestTimeout time.Duration
	// MaxRetries is the number of retries after a transient failure: 0 selects
	// DefaultMaxRetries, NoRetries (any negative value) disables retries.
	MaxRetries int
	// RetryWaitMin and RetryWaitMax bound the exponential backoff between
	// retries when the server gives no Retry-After (defaults DefaultRetryWaitMin
	// and DefaultRetryWaitMax).
	RetryWaitMin time.Duration
	RetryWaitMax time.Duration

	// Version is the provider version, sent in the User-Agent
	// terraform-provider-mediaplatform/<Version>.
	Version string

	// RefreshStrategy is how RefreshScore reads: RefreshAuto (also "") or
	// RefreshIndividual.
	RefreshStrategy string

	// RenderWait is how WaitForRendering reads: RenderWaitShared (also "") or
	// RenderWaitIndividual (one GET per wait, for comparison).
	RenderWait string

	// FromEnv names the settings (provider attribute names) that ApplyEnv filled in
	// from their environment variable.
	FromEnv map[string]bool

	// Deferred names the settings (provider attribute names) whose value the
	// configuration only knows after apply: CheckSettings does not report them.
	Deferred map[string]bool

	// Transport replaces the HTTP transport (tests). When set, CACertPEM,
	// ClientCertPEM and InsecureSkipVerify are not applied to it.
	Transport http.RoundTripper

	// clock is the clock the client waits on and judges its budgets with (tests);
	// nil is the real one (localclock.go).
	clock localClock

	// connsPerHost replaces the connections per host derived from the open-files
	// limit (tests); 0 derives them (connsPerHostFor).
	connsPerHost int
}

// ApplyEnv fills every empty string setting, and PlatformHosts when nil, from its
// environment variable, so that explicit configuration wins. A nil getenv reads the process environment.
// The variables of the settings that are not text (EnvInsecureSkipVerify,
// EnvRequestTimeout, EnvMaxRetries; request_headers' JSON) are read by the provider,
// which knows whether its configuration set them and checks their values as it checks
// its arguments.
func (c *Config) ApplyEnv(getenv func(string) string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, f := range []struct {
		field     *string
		env, name string
	}{
		{&c.AdminURL, EnvAdminURL, "admin_url"},
		{&c.AdminUsername, EnvAdminUsername, "admin_username"},
		{&c.AdminPassword, EnvAdminPassword, "admin_password"},
		{&c.PlatformURL, EnvPlatformURL, "platform_url"},
		{&c.ClientID, EnvClientID, "client_id"},
		{&c.ClientSecret, EnvClientSecret, "client_secret"},
		{&c.BasicToken, EnvBasicToken, "basic_token"},
		{&c.Username, EnvUsername, "username"},
		{&c.Password, EnvPassword, "password"},
		{&c.PublishingURL, EnvPublishingURL, "publishing_url"},
		{&c.PublishingService, EnvPublishingService, "publishing_service"},
		{&c.RegistryURL, EnvRegistryURL, "registry_url"},
		{&c.RefreshStrategy, EnvRefreshStrategy, "refresh_strategy"},
		{&c.RenderWait, EnvRenderWait, "render_wait"},
		{&c.CACertPEM, EnvCACertPEM, "ca_cert_pem"},
		{&c.ClientCertPEM, EnvClientCertPEM, "client_cert_pem"},
		{&c.ClientKeyPEM, EnvClientKeyPEM, "client_key_pem"},
	} {
		if *f.field == "" {
			if *f.field = getenv(f.env); *f.field != "" {
				if c.FromEnv == nil {
					c.FromEnv = map[string]bool{}
				}
				c.FromEnv[f.name] = true
			}
		}
	}
	if c.PlatformHosts == nil {
		c.PlatformHosts = ParsePlatformHosts(getenv(EnvPlatformHosts))
	}
}

// Whitespace at either end of a setting. A setting whose grammar cannot hold it (an
// address, basic_token, publishing_service, refresh_strategy, render_wait; the PEM
// settings, see pem.go) has it removed (trimSettings): a value read from a file or a
// secret store with its trailing line break (`echo` instead of `echo -n`, a
// Kubernetes secret made from a file) then means what it can only mean. A user name,
// a password or an application credential may hold spaces, so it is sent as given,
// and a refused login names what it started or ended with (SpacedSetting).

// SurroundingSpace says what s starts or ends with that cannot be seen: "ends with
// a line break", "starts with a space", "starts with a tab and ends with a line
// break"; "" when s starts and ends with a visible character (or is empty).
func SurroundingSpace(s string) string {
	name := func(r byte) string {
		switch r {
		case '\n', '\r':
			return "a line break"
		case '\t':
			return "a tab"
		}
		return "a space"
	}
	isSpace := func(r byte) bool { return r == ' ' || r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' }
	switch {
	case s == "":
		return ""
	case strings.TrimSpace(s) == "":
		return "is nothing but whitespace"
	}
	var parts []string
	if isSpace(s[0]) {
		parts = append(parts, "starts with "+name(s[0]))
	}
	if isSpace(s[len(s)-1]) {
		parts = append(parts, "ends with "+name(s[len(s)-1]))
	}
	return strings.Join(parts, " and ")
}

// SpacedSetting is a setting sent as configured that starts or ends with whitespace.
type SpacedSetting struct {
	// Setting is the provider attribute; EnvVar its environment variable when that is
	// where the value came from ("" otherwise); What is SurroundingSpace's sentence.
	Setting, EnvVar, What string
}

// String says it as a fact: "password (from MEDIAPLATFORM_PASSWORD) ends with a line break".
func (s SpacedSetting) String() string {
	if s.EnvVar != "" {
		return s.Setting + " (from " + s.EnvVar + ") " + s.What
	}
	return s.Setting + " " + s.What
}

// trimSettings removes the whitespace at either end of every setting whose grammar
// cannot hold it.
func (c *Config) trimSettings() {
	for _, f := range []*string{&c.AdminURL, &c.PlatformURL, &c.PublishingURL, &c.RegistryURL, &c.BasicToken,
		&c.PublishingService, &c.RefreshStrategy, &c.RenderWait} {
		*f = strings.TrimSpace(*f)
	}
}

// spacedSettings returns those of the named credential settings that start or end
// with whitespace, as they are sent.
func (c *Config) spacedSettings(names ...string) []SpacedSetting {
	values := map[string]struct{ value, env string }{
		"admin_username": {c.AdminUsername, EnvAdminUsername}, "admin_password": {c.AdminPassword, EnvAdminPassword},
		"client_id": {c.ClientID, EnvClientID}, "client_secret": {c.ClientSecret, EnvClientSecret},
		"username": {c.Username, EnvUsername}, "password": {c.Password, EnvPassword},
	}
	var out []SpacedSetting
	for _, name := range names {
		if name == "basic_token" {
			// Its encoding holds no whitespace, but its decoded secret may end with the
			// line break `echo id:secret | base64` encodes.
			if what := basicTokenSecretSpace(c.BasicToken); what != "" {
				s := SpacedSetting{Setting: name, What: "holds a secret that " + what}
				if c.FromEnv[name] {
					s.EnvVar = EnvBasicToken
				}
				out = append(out, s)
			}
			continue
		}
		v := values[name]
		if what := SurroundingSpace(v.value); what != "" {
			s := SpacedSetting{Setting: name, What: what}
			if c.FromEnv[name] {
				s.EnvVar = v.env
			}
			out = append(out, s)
		}
	}
	return out
}

// basicTokenSecretSpace is SurroundingSpace of the secret basic_token encodes, or ""
// when it encodes none.
func basicTokenSecretSpace(token string) string {
	decoded, err := base64.StdEncoding.DecodeString(sentBasicToken(token))
	if err != nil {
		return ""
	}
	_, secret, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return ""
	}
	return SurroundingSpace(secret)
}
