// Package provider implements the mediaplatform Terraform provider.
package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ provider.Provider                       = (*mediaplatformProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*mediaplatformProvider)(nil)
	_ provider.ProviderWithFunctions          = (*mediaplatformProvider)(nil)
	_ provider.ProviderWithConfigValidators   = (*mediaplatformProvider)(nil)
	_ provider.ProviderWithListResources      = (*mediaplatformProvider)(nil)
	_ provider.ProviderWithActions            = (*mediaplatformProvider)(nil)
)

// New returns a constructor for the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &mediaplatformProvider{version: version}
	}
}

// mediaplatformProvider holds the one client of this provider instance, created by
// the first Configure and handed to every resource, data source and ephemeral resource.
type mediaplatformProvider struct {
	version string

	mu     sync.Mutex
	config client.Config
	client *client.Client
}

// providerModel maps the provider configuration block.
type providerModel struct {
	AdminURL           types.String `tfsdk:"admin_url"`
	AdminUsername      types.String `tfsdk:"admin_username"`
	AdminPassword      types.String `tfsdk:"admin_password"`
	PlatformURL        types.String `tfsdk:"platform_url"`
	ClientID           types.String `tfsdk:"client_id"`
	ClientSecret       types.String `tfsdk:"client_secret"`
	BasicToken         types.String `tfsdk:"basic_token"`
	Username           types.String `tfsdk:"username"`
	Password           types.String `tfsdk:"password"`
	PublishingURL      types.String `tfsdk:"publishing_url"`
	PublishingService  types.String `tfsdk:"publishing_service"`
	RegistryURL        types.String `tfsdk:"registry_url"`
	PlatformHosts      types.List   `tfsdk:"platform_hosts"`
	CACertPEM          types.String `tfsdk:"ca_cert_pem"`
	ClientCertPEM      types.String `tfsdk:"client_cert_pem"`
	ClientKeyPEM       types.String `tfsdk:"client_key_pem"`
	RequestHeaders     types.Map    `tfsdk:"request_headers"`
	InsecureSkipVerify types.Bool   `tfsdk:"insecure_skip_verify"`
	RequestTimeout     types.String `tfsdk:"request_timeout"`
	MaxRetries         types.Int64  `tfsdk:"max_retries"`
	RefreshStrategy    types.String `tfsdk:"refresh_strategy"`
	RenderWait         types.String `tfsdk:"render_wait"`
}

// Provider defaults. The provider schema cannot carry defaults, so Configure applies them.
const (
	defaultRequestTimeout = "30s"
	defaultMaxRetries     = 4
	maxMaxRetries         = 10
)

var serviceNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// keptSpace is what the descriptions of the secrets sent as given say of whitespace
// at their ends.
const keptSpace = "whitespace at either end is kept, since a secret may hold it; a line break or a tab there gives a " +
	"warning naming the setting, and a refused login names it first"

// ConfigValidators reports, at validation time, both forms of the application
// credential set in the configuration.
func (p *mediaplatformProvider) ConfigValidators(context.Context) []provider.ConfigValidator {
	return []provider.ConfigValidator{oneApplicationCredential{}}
}

// oneApplicationCredential reports basic_token beside client_id or client_secret in
// the provider block as one error with the fix, in the words Configure gives the same
// conflict through the environment (conflictingCredentials); the framework's
// Conflicting and ConflictsWith gave one error per pair and per side, and no fix.
type oneApplicationCredential struct{}

func (oneApplicationCredential) Description(context.Context) string {
	return "basic_token, or client_id and client_secret, not both"
}

func (v oneApplicationCredential) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (oneApplicationCredential) ValidateProvider(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var basic, id, secret types.String
	for _, a := range []struct {
		name string
		v    *types.String
	}{{"basic_token", &basic}, {"client_id", &id}, {"client_secret", &secret}} {
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(a.name), a.v)...)
	}
	if resp.Diagnostics.HasError() || basic.IsNull() || (id.IsNull() && secret.IsNull()) {
		return
	}
	var others []string
	if !id.IsNull() {
		others = append(others, "client_id")
	}
	if !secret.IsNull() {
		others = append(others, "client_secret")
	}
	resp.Diagnostics.AddAttributeError(path.Root("basic_token"), conflictingCredentialsSummary,
		conflictingCredentials("basic_token (in the provider configuration)",
			strings.Join(others, " and ")+" (in the provider configuration)"))
}

// conflictingCredentialsSummary is the summary of conflictingCredentials.
const conflictingCredentialsSummary = "Conflicting application credentials"

// conflictingCredentials is the detail of both forms of the application credential
// set: basic says where basic_token is set, others where client_id or client_secret are.
func conflictingCredentials(basic, others string) string {
	return fmt.Sprintf("%s and %s are both set. They are two forms of the same credential, and the provider does not "+
		"guess which one you mean: set either basic_token, or both client_id and client_secret, and unset the other "+
		"(in the configuration or the environment).", basic, others)
}

func (p *mediaplatformProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "mediaplatform"
	resp.Version = p.version
}

func (p *mediaplatformProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	urlValidators := []validator.String{trimmed(absoluteURL())}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages the media platform's administrator settings, scores and views, and reads its commands and data models.\n\n" +
			"Every argument can also be set through the environment variable named in its description; a value in the " +
			"configuration wins. Configuring the provider contacts nothing: the provider logs in on the first operation " +
			"that needs the administrator API or the platform, and logs out when Terraform ends it.\n\n" +
			"Whitespace at either end of a value (a value read with `file()` or from a secret store keeps the file's last " +
			"line break) is removed where the value cannot hold any: the addresses (`admin_url`, `platform_url`, " +
			"`publishing_url`, `registry_url`), `basic_token`, `publishing_service`, `request_timeout`, `refresh_strategy`, " +
			"`render_wait` and the PEM settings. It is kept where it could belong: `admin_username`, `admin_password`, " +
			"`client_id`, `client_secret`, `username` and `password` are sent as given, a line break or a tab at either end " +
			"gives a warning naming the setting, and a refused login names the whitespace before anything else.",
		Attributes: map[string]schema.Attribute{
			"admin_url": schema.StringAttribute{
				MarkdownDescription: "Base address of the administrator API, ending in its version-1 segment, e.g. `https://host/api/v1`; whitespace at " +
					"either end (a file's last line break) is removed. " +
					"Needed by `mediaplatform_external_authentication`, and to derive `publishing_url`. Environment variable: `" + client.EnvAdminURL + "`.",
				Optional:   true,
				Validators: urlValidators,
			},
			"admin_username": schema.StringAttribute{
				MarkdownDescription: "User name for the administrator API login. Environment variable: `" + client.EnvAdminUsername + "`.",
				Optional:            true,
			},
			"admin_password": schema.StringAttribute{
				MarkdownDescription: "Password for the administrator API login, sent as given (" + keptSpace + "). Environment variable: `" + client.EnvAdminPassword + "`.",
				Optional:            true,
				Sensitive:           true,
			},
			"platform_url": schema.StringAttribute{
				MarkdownDescription: "Address of the platform host serving the token flow, the service registry, commands and data models, " +
					"e.g. `https://host`; whitespace at either end (a file's last line break) is removed. Needed by every object " +
					"that uses a platform access token (scores, views). " +
					"Environment variable: `" + client.EnvPlatformURL + "`.",
				Optional:   true,
				Validators: urlValidators,
			},
			"client_id": schema.StringAttribute{
				MarkdownDescription: "Application (OAuth client) identifier for the password grant. Use it with `client_secret`, " +
					"or set `basic_token` instead. Environment variable: `" + client.EnvClientID + "`.",
				Optional: true,
			},
			"client_secret": schema.StringAttribute{
				MarkdownDescription: "Application (OAuth client) secret for the password grant, sent as given (" + keptSpace + "). Environment variable: `" + client.EnvClientSecret + "`.",
				Optional:            true,
				Sensitive:           true,
			},
			"basic_token": schema.StringAttribute{
				MarkdownDescription: "The application credential already encoded for HTTP Basic authentication (standard Base64 of " +
					"`client_id:client_secret`, as `printf '%s' 'id:secret' | base64 -w0` writes it), with or without `Basic ` " +
					"before it. A value that is not Base64, such as `id:secret` pasted unencoded or `base64`'s output wrapped " +
					"over lines, is refused at plan; one whose decoded form holds no `:`, or whose secret ends with the line " +
					"break `echo id:secret | base64` encodes, gives a warning. " +
					"Conflicts with `client_id` and `client_secret`. Environment variable: `" + client.EnvBasicToken + "`.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{basicToken()},
			},
			"username": schema.StringAttribute{
				MarkdownDescription: "Platform user for the password grant. Environment variable: `" + client.EnvUsername + "`.",
				Optional:            true,
			},
			"password": schema.StringAttribute{
				MarkdownDescription: "Password of the platform user, sent as given (" + keptSpace + "). Environment variable: `" + client.EnvPassword + "`.",
				Optional:            true,
				Sensitive:           true,
			},
			"publishing_url": schema.StringAttribute{
				MarkdownDescription: "Full address of the score publishing API. When unset it is derived from `admin_url` as " +
					"`{admin_url}/apis/{publishing_service};version=2;realm=global`. Environment variable: `" + client.EnvPublishingURL + "`.",
				Optional:   true,
				Validators: urlValidators,
			},
			"publishing_service": schema.StringAttribute{
				MarkdownDescription: "Name of the publishing service used to derive `publishing_url`; default `" + client.DefaultPublishingService +
					"`. Ignored when `publishing_url` is set. Environment variable: `" + client.EnvPublishingService + "`.",
				Optional: true,
				Validators: []validator.String{trimmed(
					stringvalidator.RegexMatches(serviceNamePattern, "must be a service name of letters, digits, '.', '_' and '-'"),
				)},
			},
			"registry_url": schema.StringAttribute{
				MarkdownDescription: "Address of the service registry's service roots, overriding the default " +
					"`{platform_url}/apis/registry;version=0/serviceroots`. Environment variable: `" + client.EnvRegistryURL + "`.",
				Optional:   true,
				Validators: urlValidators,
			},
			"platform_hosts": schema.ListAttribute{
				MarkdownDescription: "The platform's other names: hosts its documents' links may name besides " +
					"`platform_url`'s (and `registry_url`'s), which get the platform's credentials too. The provider sends " +
					"credentials to no host the settings do not name, and says which host a link named when it refuses one. " +
					"An entry `host` or `host:port` (a port left out is the scheme's default) is the platform under another " +
					"name, such as its DNS name where `platform_url` holds its address, or the external name of a load balancer " +
					"in front of it: a link naming it is followed at `platform_url`'s address (with the link's path), so the " +
					"name need not resolve from the machine Terraform runs on. An entry with its scheme, " +
					"`https://host[:port]`, is a host of the platform's own, such as a token service on a host of its own: a " +
					"link naming it is followed as written, and it also gets `request_headers` and the client certificate. " +
					"Nothing else (no path, no user). Environment variable: `" + client.EnvPlatformHosts + "`, the entries " +
					"separated by commas.",
				ElementType: types.StringType,
				Optional:    true,
				Validators:  []validator.List{listvalidator.ValueStringsAre(platformHost())},
			},
			"ca_cert_pem": schema.StringAttribute{
				MarkdownDescription: "PEM-encoded CA certificates trusted in addition to the system's, for platforms with a private " +
					"certificate authority: the PEM text itself (with `file()` for a file), not a file name. Every PEM setting " +
					"accepts text indented as a heredoc leaves it, with Windows line ends or surrounding whitespace; escaped `\\n` " +
					"line breaks, DER and PKCS#12 files are refused with the command that converts them. Environment " +
					"variable: `" + client.EnvCACertPEM + "`.",
				Optional:   true,
				Validators: []validator.String{pemCertificates()},
			},
			"client_cert_pem": schema.StringAttribute{
				MarkdownDescription: "A client certificate (PEM, the leaf first, then any intermediates) for a gateway in front " +
					"of the platform that demands mutual TLS. It is presented in the TLS handshake with the platform's own hosts " +
					"(`admin_url`, `platform_url`, `publishing_url`, `registry_url`) and no other. Set it with `file()` or from a " +
					"secret store; to rotate it, change the value (or the file) and run again: each run reads it once. A " +
					"certificate that has expired gives a warning with its date. From a `.p12`/`.pfx` bundle, take it with " +
					"`openssl pkcs12 -in bundle.p12 -nodes -nokeys -out cert.pem`. Needs `client_key_pem`. Environment variable: `" +
					client.EnvClientCertPEM + "`.",
				Optional:   true,
				Validators: []validator.String{pemCertificates()},
			},
			"client_key_pem": schema.StringAttribute{
				MarkdownDescription: "The private key (PEM, unencrypted) of `client_cert_pem`; it must match that certificate. " +
					"An encrypted key (`-----BEGIN ENCRYPTED PRIVATE KEY-----`, or `Proc-Type: 4,ENCRYPTED`) is refused: decrypt " +
					"it once with `openssl pkey -in key.pem -out plain.pem`; from a `.p12`/`.pfx` bundle, take it with " +
					"`openssl pkcs12 -in bundle.p12 -nodes -nocerts -out key.pem`. Never shown in " +
					"logs, errors or the plan. Environment variable: `" + client.EnvClientKeyPEM + "`.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{pemPrivateKey()},
			},
			"request_headers": schema.MapAttribute{
				MarkdownDescription: "Extra HTTP headers sent with every request to the platform's own hosts, and to no other " +
					"host (not to a redirect's target nor to a link that leaves those hosts): the access headers of a zero-trust " +
					"gateway or reverse proxy, such as a service token's `CF-Access-Client-Id`/`CF-Access-Client-Secret` or an " +
					"API key. The values are sensitive: masked in every log line and error. The headers the provider sets " +
					"itself are refused: `Authorization`, `token`, `Content-Type`, `Host`, `Content-Length`. Environment " +
					"variable: `" + client.EnvRequestHeaders + "`, a JSON object of strings.",
				ElementType: types.StringType,
				Optional:    true,
				Sensitive:   true,
				Validators:  []validator.Map{requestHeaders()},
			},
			"insecure_skip_verify": schema.BoolAttribute{
				MarkdownDescription: "Skip TLS certificate verification. Default `false`; only for throw-away test installations. " +
					"Environment variable: `" + client.EnvInsecureSkipVerify + "`, `true` or `false`.",
				Optional: true,
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: "Time limit of every single HTTP request, as a duration such as `30s` or `2m`. Default `" + defaultRequestTimeout + "`. " +
					"Once Terraform is interrupted (Ctrl-C, a cancelled CI job, `docker stop`), a write already sent may take " +
					"at most " + stopGrace.String() + " more, whatever this setting, so that Terraform with this provider ends " +
					"within about " + stopBound.String() + " of one interrupt. Environment variable: `" + client.EnvRequestTimeout + "`.",
				Optional:   true,
				Validators: []validator.String{trimmed(positiveDuration())},
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many times a request that failed transiently (503, and for idempotent "+
					"requests 502, 504 and connection errors) is retried, with backoff and honouring `Retry-After`. "+
					"A rate limit (429) is retried for up to 2 minutes per request however many attempts that takes, and "+
					"after a 429 every request of the provider waits as the platform asked, then goes at the rate the "+
					"platform let through (four fifths of it, adjusted by later 429s, for 30 s after the last one), so a "+
					"burst at high `-parallelism` slows down to the limit instead of failing. One wait is at most 30 s; a `Retry-After` longer than "+
					"what is left of the request's budget fails the request at once, naming the wait. "+
					"From 0 (no retries at all) to %d; default %d. Environment variable: `%s`.", maxMaxRetries, defaultMaxRetries,
					client.EnvMaxRetries),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, maxMaxRetries)},
			},
			"refresh_strategy": schema.StringAttribute{
				MarkdownDescription: "How the provider reads `mediaplatform_score` (resources, the data source, and the scores " +
					"of score views) during a refresh. `auto` (the default): one GET per score while few are read; once a " +
					"run reads about as many scores as one listing of all the platform's scores would cost (its pages of " +
					"100, learned with one count request), it lists every page once and answers the remaining reads from that " +
					"listing, for at most 30 s and until the next publish or delete. A plan of 1,000 scores then costs about " +
					"a dozen requests instead of 1,000, which matters on a slow network or under a rate limit; a configuration " +
					"of a few scores on a large platform still reads each with one GET (plus one count request when it reads " +
					"more than one). A score the listing lacks is read with a GET before it is called gone. What `auto` " +
					"trusts is the listing: on a platform that serves its list from a search index, the list may lag single " +
					"reads by up to the index's refresh (typically a second), so a score deleted outside Terraform moments " +
					"before the plan may still be listed, and that plan shows nothing for it; the next plan publishes it " +
					"again. `individual`: always one GET per score, every answer as fresh as a single read is, at the cost " +
					"of one request per score in every plan and apply (1,000 scores: 1,000 GETs, within the rate limit). " +
					"Environment variable: `" + client.EnvRefreshStrategy + "`.",
				Optional:   true,
				Validators: []validator.String{trimmed(stringvalidator.OneOf(client.RefreshAuto, client.RefreshIndividual))},
			},
			"render_wait": schema.StringAttribute{
				MarkdownDescription: "How creates of `mediaplatform_score` with `wait_for_rendering` wait for their rendering. " +
					"`shared` (the default): the waits of one run share their reads. Terraform runs at most its " +
					"`-parallelism` of creates at once; once that many wait, they are read together, with one list page of " +
					"this run's newest scores (a score missing from it with a GET), when the last of them should have " +
					"finished by the platform's rendering time, learned from the scores that finished. An apply of 1,000 " +
					"scores at the default parallelism of 10 so costs about a hundred reads instead of five thousand, " +
					"whatever the platform's size or the machine's speed, and leaves a rate limit to the publishes; a " +
					"single create polls its own score. `individual`: every create polls its own score, backing off from " +
					"100 ms to 2 s. " +
					"Environment variable: `" + client.EnvRenderWait + "`.",
				Optional:   true,
				Validators: []validator.String{trimmed(stringvalidator.OneOf(client.RenderWaitShared, client.RenderWaitIndividual))},
			},
		},
	}
}

// Configure builds the client from the configuration and the environment. It makes no
// request, and a value unknown at plan time is left out (neither it nor its environment
// variable is used): an object that needs it then reports it as missing.
func (p *mediaplatformProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var data providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}

	typedFromEnv, ok := p.typedEnvSettings(ctx, &data, &resp.Diagnostics)
	if !ok {
		return
	}
	cfg, ignoredEnv := configFromModel(data)
	cfg.Version = p.version
	cfg.ApplyEnv(func(name string) string {
		if ignoredEnv[name] {
			return ""
		}
		return os.Getenv(name)
	})

	for name := range typedFromEnv {
		if cfg.FromEnv == nil {
			cfg.FromEnv = map[string]bool{}
		}
		cfg.FromEnv[name] = true
	}

	if !p.networkSettings(&cfg, data, ignoredEnv, &resp.Diagnostics) {
		return
	}

	if cfg.BasicToken != "" && (cfg.ClientID != "" || cfg.ClientSecret != "") {
		// Both forms of the application credential, one of them (at least) from the
		// environment: the configuration-level conflict is reported by ConfigValidators.
		from := func(v types.String, name, env string) string {
			if v.IsNull() {
				return fmt.Sprintf("%s (from the environment variable %s)", name, env)
			}
			return name + " (in the provider configuration)"
		}
		other := from(data.ClientID, "client_id", client.EnvClientID)
		if cfg.ClientID == "" {
			other = from(data.ClientSecret, "client_secret", client.EnvClientSecret)
		}
		resp.Diagnostics.AddError(conflictingCredentialsSummary,
			conflictingCredentials(from(data.BasicToken, "basic_token", client.EnvBasicToken), other))
		return
	}

	if data.BasicToken.IsNull() && cfg.BasicToken != "" {
		// From the environment: judged as the schema's validator judges the configuration's.
		problem, warning := client.CheckBasicToken(cfg.BasicToken)
		if problem != "" {
			resp.Diagnostics.AddError("Invalid provider setting", fmt.Sprintf("The environment variable %s (it sets the "+
				"provider argument basic_token) must be the standard Base64 of client_id:client_secret; %s. Correct or "+
				"unset it.", client.EnvBasicToken, problem))
			return
		}
		if warning != "" {
			resp.Diagnostics.AddWarning("Application credential the platform will likely refuse", fmt.Sprintf("The "+
				"environment variable %s (it sets the provider argument basic_token), %s.", client.EnvBasicToken, warning))
		}
	}

	c, err := p.clientFor(cfg)
	if err != nil {
		var settingErr *client.SettingError
		if errors.As(err, &settingErr) {
			resp.Diagnostics.AddError("Invalid provider setting", settingLead(settingErr, data)+"\n\nCause: "+err.Error())
			return
		}
		resp.Diagnostics.AddError("Unable to configure the mediaplatform provider",
			"The provider configuration holds a setting that can never work. Correct it and run Terraform again.\n\nCause: "+err.Error())
		return
	}
	// Work shared by many calls (a batched refresh's listing, the shared rendering
	// wait) logs in the configuration's context: a call's context is released when
	// the call returns (callContext).
	c.SetBackground(ctx)
	if len(ignoredEnv) > 0 {
		tflog.Debug(ctx, "Provider configured without some environment variables", map[string]any{"ignored_environment_variables": len(ignoredEnv)})
	}
	spacedCredentialWarnings(cfg, &resp.Diagnostics)
	if lines := unknownEnvWarning(os.Environ()); lines != "" {
		resp.Diagnostics.AddWarning("Unknown MEDIAPLATFORM_ environment variable",
			"The provider reads its settings from MEDIAPLATFORM_* variables and ignores any other:\n"+lines)
	}
	if cfg.InsecureSkipVerify {
		setting := "insecure_skip_verify = true"
		if cfg.FromEnv["insecure_skip_verify"] {
			setting = client.EnvInsecureSkipVerify + "=" + os.Getenv(client.EnvInsecureSkipVerify)
		}
		resp.Diagnostics.AddAttributeWarning(path.Root("insecure_skip_verify"), "TLS certificate verification is off",
			setting+": the provider does not verify the platform's certificate, so anyone on the network "+
				"path can read and change its traffic, credentials included. Use it only with throw-away test installations; "+
				"for a platform whose certificate a private authority signed, set ca_cert_pem instead.")
	}
	resp.DataSourceData = c
	resp.ResourceData = c
	resp.EphemeralResourceData = c
	resp.ListResourceData = c
	resp.ActionData = c
}

// typedEnvSettings fills insecure_skip_verify, request_timeout and max_retries, when
// the configuration leaves them out (null; an unknown value ignores the environment),
// from their environment variables, whose text it converts to the argument's type
// (client.ApplyEnv fills only text settings). The value is then checked by the
// argument's own validators, so that the environment is held to the configuration's
// rules, and refused naming the variable. It returns the arguments so filled, and
// false after an error.
func (p *mediaplatformProvider) typedEnvSettings(ctx context.Context, data *providerModel, diags *diag.Diagnostics) (map[string]bool, bool) {
	var sr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sr)
	fromEnv := map[string]bool{}
	refuse := func(name, env, text, problem string) (map[string]bool, bool) {
		diags.AddAttributeError(path.Root(name), "Invalid provider setting", fmt.Sprintf("The environment variable %s is "+
			"%q: %s (it sets the provider argument %s). Correct or unset it.", env, text, problem, name))
		return nil, false
	}
	if text := os.Getenv(client.EnvInsecureSkipVerify); text != "" && data.InsecureSkipVerify.IsNull() {
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return refuse("insecure_skip_verify", client.EnvInsecureSkipVerify, text, `it must be "true" or "false"`)
		}
		data.InsecureSkipVerify, fromEnv["insecure_skip_verify"] = types.BoolValue(b), true
	}
	if text := os.Getenv(client.EnvRequestTimeout); text != "" && data.RequestTimeout.IsNull() {
		v := types.StringValue(text)
		if problem := validatorProblem(ctx, sr.Schema.Attributes["request_timeout"], "request_timeout", v); problem != "" {
			return refuse("request_timeout", client.EnvRequestTimeout, text, problem)
		}
		data.RequestTimeout, fromEnv["request_timeout"] = v, true
	}
	if text := os.Getenv(client.EnvMaxRetries); text != "" && data.MaxRetries.IsNull() {
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return refuse("max_retries", client.EnvMaxRetries, text, "it must be a whole number")
		}
		v := types.Int64Value(n)
		if problem := validatorProblem(ctx, sr.Schema.Attributes["max_retries"], "max_retries", v); problem != "" {
			return refuse("max_retries", client.EnvMaxRetries, text, problem)
		}
		data.MaxRetries, fromEnv["max_retries"] = v, true
	}
	return fromEnv, true
}

// validatorProblem runs the validators of the provider argument name on v and returns
// the first error's words, as "it must be …", or "".
func validatorProblem(ctx context.Context, a schema.Attribute, name string, v attr.Value) string {
	var diags diag.Diagnostics
	at := path.Root(name)
	s, isString := v.(types.String)
	n, isInt64 := v.(types.Int64)
	switch a := a.(type) {
	case schema.StringAttribute:
		for _, check := range a.Validators {
			if isString {
				var r validator.StringResponse
				check.ValidateString(ctx, validator.StringRequest{Path: at, PathExpression: at.Expression(), ConfigValue: s}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.Int64Attribute:
		for _, check := range a.Validators {
			if isInt64 {
				var r validator.Int64Response
				check.ValidateInt64(ctx, validator.Int64Request{Path: at, PathExpression: at.Expression(), ConfigValue: n}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	}
	for _, d := range diags.Errors() {
		return "it " + strings.TrimSuffix(strings.TrimPrefix(d.Detail(), "Attribute "+name+" value "), ".")
	}
	return ""
}

// spacedCredentialWarnings warns of each user name, password or application
// credential that starts or ends with a line break or a tab: the client sends those
// as given, since such a value may hold spaces, but a line break at its end is almost
// always the one a file or a secret store kept (`echo` instead of `echo -n`).
func spacedCredentialWarnings(cfg client.Config, diags *diag.Diagnostics) {
	for _, s := range []struct{ name, value, env string }{
		{"admin_username", cfg.AdminUsername, client.EnvAdminUsername},
		{"admin_password", cfg.AdminPassword, client.EnvAdminPassword},
		{"client_id", cfg.ClientID, client.EnvClientID},
		{"client_secret", cfg.ClientSecret, client.EnvClientSecret},
		{"username", cfg.Username, client.EnvUsername},
		{"password", cfg.Password, client.EnvPassword},
	} {
		what := client.SurroundingSpace(s.value)
		if !strings.Contains(what, "line break") && !strings.Contains(what, "tab") && !strings.Contains(what, "nothing but") {
			continue
		}
		at := "`" + s.name + "`"
		if cfg.FromEnv[s.name] {
			at += " (from " + s.env + ")"
		}
		diags.AddAttributeWarning(path.Root(s.name), "Provider setting "+what,
			fmt.Sprintf("%s %s, which the provider sends as part of it: remove it (`echo -n`, `trimspace()`, a secret made "+
				"without the file's last line break) unless it belongs to the value. A login refused with it names it again.", at, what))
	}
}

// networkSettings completes and checks the settings of a corporate network once the
// environment has filled in the rest: request_headers from its variable, and the
// client certificate, whose parts may come from the configuration and the
// environment apart. It reports false after an error, each naming the setting (or
// the variable) at fault, before any request.
func (p *mediaplatformProvider) networkSettings(cfg *client.Config, data providerModel, ignoredEnv map[string]bool, diags *diag.Diagnostics) bool {
	if cfg.RequestHeaders == nil && !ignoredEnv[client.EnvRequestHeaders] {
		if text := os.Getenv(client.EnvRequestHeaders); text != "" {
			h, err := client.ParseRequestHeaders(text)
			if err != nil {
				diags.AddError("Invalid provider setting", "The environment variable "+client.EnvRequestHeaders+
					" (request_headers) cannot be read: "+err.Error())
				return false
			}
			for name, value := range h {
				if problem := client.CheckRequestHeader(name, value); problem != "" {
					diags.AddError("Invalid provider setting", fmt.Sprintf("The environment variable %s (request_headers) "+
						"holds a header the provider cannot send: %s.%s", client.EnvRequestHeaders, problem, ownedHeaderAdvice(name)))
					return false
				}
			}
			cfg.RequestHeaders = h
		}
	}
	// A setting is named with its variable only when the variable is where its value
	// came from: the configuration left it null and the environment filled it in.
	where := func(v types.String, value, name, env string) string {
		if v.IsNull() && value != "" {
			return fmt.Sprintf("%s (from the environment variable %s)", name, env)
		}
		return name
	}
	caAt := where(data.CACertPEM, cfg.CACertPEM, "ca_cert_pem", client.EnvCACertPEM)
	certAt := where(data.ClientCertPEM, cfg.ClientCertPEM, "client_cert_pem", client.EnvClientCertPEM)
	keyAt := where(data.ClientKeyPEM, cfg.ClientKeyPEM, "client_key_pem", client.EnvClientKeyPEM)

	// The same values the client reads: pasted PEM made plain (client.NormalizePEM).
	cfg.CACertPEM = client.NormalizePEM(cfg.CACertPEM)
	cfg.ClientCertPEM = client.NormalizePEM(cfg.ClientCertPEM)
	cfg.ClientKeyPEM = client.NormalizePEM(cfg.ClientKeyPEM)
	for _, s := range []struct {
		value, at, attribute, summary string
		kind                          client.PEMKind
	}{
		{cfg.CACertPEM, caAt, "ca_cert_pem", "Invalid CA certificate", client.PEMCertificates},
		{cfg.ClientCertPEM, certAt, "client_cert_pem", "Invalid client certificate", client.PEMCertificates},
		{cfg.ClientKeyPEM, keyAt, "client_key_pem", "Invalid client certificate", client.PEMPrivateKey},
	} {
		if s.value == "" {
			continue
		}
		if problem := client.PEMProblem(s.value, s.kind); problem != "" {
			diags.AddAttributeError(path.Root(s.attribute), s.summary, fmt.Sprintf("%s cannot be used: %s.", s.at, problem))
			return false
		}
	}
	if cfg.ClientCertPEM == "" && cfg.ClientKeyPEM == "" {
		return true
	}
	if _, err := client.ReadClientCertificate(cfg.ClientCertPEM, cfg.ClientKeyPEM); err != nil {
		at := path.Root("client_key_pem")
		if cfg.ClientCertPEM != "" && strings.HasPrefix(err.Error(), "client_cert_pem") || cfg.ClientKeyPEM == "" {
			at = path.Root("client_cert_pem")
		}
		diags.AddAttributeError(at, "Invalid client certificate",
			fmt.Sprintf("The client certificate (%s) and its key (%s) cannot be used: %s.%s", certAt, keyAt, err,
				certificatePairLead(cfg.ClientCertPEM, cfg.ClientKeyPEM)))
		return false
	}
	if notAfter, subject := client.CertificateExpiry(cfg.ClientCertPEM); !notAfter.IsZero() && time.Now().After(notAfter) {
		diags.AddAttributeWarning(path.Root("client_cert_pem"), "Client certificate expired",
			fmt.Sprintf("The client certificate in %s (%s) expired at %s: a gateway that checks it will refuse every "+
				"request. Renew it, and set the new certificate and key.", certAt, subject, notAfter.UTC().Format(time.RFC3339)))
	}
	return true
}

// configFromModel turns the known configuration values into a client.Config. It also
// returns the environment variables that must not fill in the rest: those of settings
// whose value is unknown (the configuration gives it later). The other form of the
// application credential is not ignored: basic_token beside client_id/client_secret
// is a conflict wherever each comes from, and Configure reports it.
func configFromModel(data providerModel) (client.Config, map[string]bool) {
	cfg := client.Config{}
	ignoredEnv := map[string]bool{}
	for _, s := range []struct {
		value types.String
		field *string
		env   string
		name  string
	}{
		{data.AdminURL, &cfg.AdminURL, client.EnvAdminURL, "admin_url"},
		{data.AdminUsername, &cfg.AdminUsername, client.EnvAdminUsername, "admin_username"},
		{data.AdminPassword, &cfg.AdminPassword, client.EnvAdminPassword, "admin_password"},
		{data.PlatformURL, &cfg.PlatformURL, client.EnvPlatformURL, "platform_url"},
		{data.ClientID, &cfg.ClientID, client.EnvClientID, "client_id"},
		{data.ClientSecret, &cfg.ClientSecret, client.EnvClientSecret, "client_secret"},
		{data.BasicToken, &cfg.BasicToken, client.EnvBasicToken, "basic_token"},
		{data.Username, &cfg.Username, client.EnvUsername, "username"},
		{data.Password, &cfg.Password, client.EnvPassword, "password"},
		{data.PublishingURL, &cfg.PublishingURL, client.EnvPublishingURL, "publishing_url"},
		{data.PublishingService, &cfg.PublishingService, client.EnvPublishingService, "publishing_service"},
		{data.RegistryURL, &cfg.RegistryURL, client.EnvRegistryURL, "registry_url"},
		{data.RefreshStrategy, &cfg.RefreshStrategy, client.EnvRefreshStrategy, "refresh_strategy"},
		{data.RenderWait, &cfg.RenderWait, client.EnvRenderWait, "render_wait"},
		{data.CACertPEM, &cfg.CACertPEM, client.EnvCACertPEM, "ca_cert_pem"},
		{data.ClientCertPEM, &cfg.ClientCertPEM, client.EnvClientCertPEM, "client_cert_pem"},
		{data.ClientKeyPEM, &cfg.ClientKeyPEM, client.EnvClientKeyPEM, "client_key_pem"},
	} {
		if s.value.IsUnknown() {
			if s.env != "" {
				ignoredEnv[s.env] = true
			}
			if cfg.Deferred == nil {
				cfg.Deferred = map[string]bool{}
			}
			cfg.Deferred[s.name] = true
			continue
		}
		*s.field = s.value.ValueString()
	}
	cfg.InsecureSkipVerify = data.InsecureSkipVerify.ValueBool()
	switch {
	case data.PlatformHosts.IsUnknown():
		ignoredEnv[client.EnvPlatformHosts] = true
	case !data.PlatformHosts.IsNull():
		cfg.PlatformHosts = []string{} // set, even empty: the environment does not add to it
		for _, v := range data.PlatformHosts.Elements() {
			if str, ok := v.(types.String); ok && !str.IsUnknown() && !str.IsNull() {
				cfg.PlatformHosts = append(cfg.PlatformHosts, str.ValueString())
			}
		}
	}
	switch {
	case data.RequestHeaders.IsUnknown():
		ignoredEnv[client.EnvRequestHeaders] = true
	case !data.RequestHeaders.IsNull():
		cfg.RequestHeaders = map[string]string{}
		for name, v := range data.RequestHeaders.Elements() {
			if str, ok := v.(types.String); ok && !str.IsUnknown() && !str.IsNull() {
				cfg.RequestHeaders[name] = str.ValueString()
			}
		}
	}

	// The validators accept only positive durations; a value unknown now uses the default.
	timeout, err := time.ParseDuration(strings.TrimSpace(data.RequestTimeout.ValueString()))
	if data.RequestTimeout.IsNull() || data.RequestTimeout.IsUnknown() || err != nil || timeout <= 0 {
		timeout, _ = time.ParseDuration(defaultRequestTimeout)
	}
	cfg.RequestTimeout = timeout

	retries := int64(defaultMaxRetries)
	if !data.MaxRetries.IsNull() && !data.MaxRetries.IsUnknown() {
		retries = data.MaxRetries.ValueInt64()
	}
	cfg.MaxRetries = int(retries)
	if retries == 0 {
		// The client reads 0 as "its default"; the user asked for none.
		cfg.MaxRetries = client.NoRetries
	}
	return cfg, ignoredEnv
}

// clientFor returns the provider instance's client, creating and registering it on
// first use. Terraform configures an instance once; should it configure it again with
// different settings, a new client is created (the old one is closed with the rest).
func (p *mediaplatformProvider) clientFor(cfg client.Config) (*client.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil && reflect.DeepEqual(p.config, cfg) {
		return p.client, nil
	}
	c, err := client.New(cfg)
	if err != nil {
		return nil, err
	}
	addLiveClient(c)
	p.config, p.client = cfg, c
	return c, nil
}

func (p *mediaplatformProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewExternalAuthenticationResource,
		NewScoreResource,
		NewScoreViewResource,
	}
}

func (p *mediaplatformProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		// The administrator API, the score publishing API and the commands.
		NewExternalAuthenticationDataSource,
		NewScoreDataSource,
		NewScoresDataSource,
		NewScoreCountDataSource,
		NewHealthDataSource,
		NewCommandDataSource,
		// The service registry and the data models.
		NewSystemsDataSource,
		NewSystemModelDataSource,
		NewAssetModelDataSource,
	}
}

// EphemeralResources need Terraform 1.10 or later.
func (p *mediaplatformProvider) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewScoreViewEphemeralResource,
		NewAccessTokenEphemeralResource,
	}
}

func (p *mediaplatformProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		NewScoreListResource,
	}
}

func (p *mediaplatformProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{
		NewCancelCommandAction,
	}
}

func (p *mediaplatformProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		NewLocalizedLabelFunction,
		NewEvaluateExpressionFunction,
	}
}

// clientFromProviderData returns the client handed over by Configure. A nil
// providerData means the provider is not configured yet (Terraform validates
// configurations before configuring), which is not an error.
func clientFromProviderData(providerData any, diags *diag.Diagnostics) *client.Client {
	if providerData == nil {
		return nil
	}
	c, ok := providerData.(*client.Client)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *client.Client, got %T. This is a bug in the provider; please report it.", providerData))
		return nil
	}
	return c
}

// settingLead is the first sentence for a setting that can never work: the
// environment variable and its value when the value came from there, else the
// argument.
func settingLead(e *client.SettingError, data providerModel) string {
	configured := map[string]types.String{
		"admin_url": data.AdminURL, "platform_url": data.PlatformURL, "publishing_url": data.PublishingURL,
		"registry_url": data.RegistryURL, "refresh_strategy": data.RefreshStrategy, "render_wait": data.RenderWait,
	}
	if e.Setting == "platform_hosts" && data.PlatformHosts.IsNull() {
		return fmt.Sprintf("The environment variable %s holds %q: %s (it sets the provider argument platform_hosts). "+
			"Correct or unset it.", e.EnvVar, e.Value, e.Problem)
	}
	if v, ok := configured[e.Setting]; ok && v.IsNull() && e.EnvVar != "" {
		return fmt.Sprintf("The environment variable %s is %q: %s (it sets the provider argument %s). Correct or unset it.",
			e.EnvVar, e.Value, e.Problem, e.Setting)
	}
	return fmt.Sprintf("The provider argument %s is %q: %s.", e.Setting, e.Value, e.Problem)
}
