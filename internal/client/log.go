package client

import (
	"context"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// LogSubsystem is the tflog subsystem the client logs to. Its level can be set
// with the environment variable TF_LOG_PROVIDER_MEDIAPLATFORM_CLIENT.
const LogSubsystem = "mediaplatform_client"

// sensitiveLogKeys are field names whose values are always masked. The client
// never logs such fields; the mask protects against future mistakes.
var sensitiveLogKeys = []string{
	"token", "access_token", "accessToken", "session", "password", "pass",
	"client_secret", "basic_token", "authorization", "Authorization",
	"cookie", "Cookie", "set-cookie", "Set-Cookie", "viewer_url", "viewerUrl",
}

// logContext sets up the client's log subsystem on ctx, masking the
// configured secrets and the credentials currently held. Without a root
// logger on ctx (outside Terraform) logging is a no-op.
func (c *Client) logContext(ctx context.Context) context.Context {
	// With the root fields, each line carries what the caller set: the SDK's
	// tf_resource_type and tf_rpc, and the provider's resource id.
	ctx = tflog.NewSubsystem(ctx, LogSubsystem, tflog.WithLevelFromEnv("TF_LOG_PROVIDER_MEDIAPLATFORM", "CLIENT"), tflog.WithRootFields())
	ctx = tflog.SubsystemMaskFieldValuesWithFieldKeys(ctx, LogSubsystem, sensitiveLogKeys...)
	if secrets := c.secretStrings(); len(secrets) > 0 {
		ctx = tflog.SubsystemMaskAllFieldValuesStrings(ctx, LogSubsystem, secrets...)
		ctx = tflog.SubsystemMaskMessageStrings(ctx, LogSubsystem, secrets...)
	}
	return ctx
}

// configuredSecrets lists the non-empty secrets of cfg, including the basic
// credential encoded from client_id and client_secret. New computes it once.
func configuredSecrets(cfg Config) []string {
	candidates := []string{cfg.AdminPassword, cfg.ClientSecret, cfg.BasicToken, cfg.Password, cfg.ClientKeyPEM}
	for _, v := range cfg.RequestHeaders {
		candidates = append(candidates, v)
	}
	if cfg.ClientID != "" && cfg.ClientSecret != "" {
		candidates = append(candidates, base64.StdEncoding.EncodeToString([]byte(cfg.ClientID+":"+cfg.ClientSecret)))
	}
	// A password written into an address (https://user:pass@host) is a secret too.
	for _, a := range []string{cfg.AdminURL, cfg.PlatformURL, cfg.PublishingURL, cfg.RegistryURL} {
		if u, err := url.Parse(a); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				candidates = append(candidates, p)
			}
		}
	}
	// A server that echoes a form echoes its values URL-encoded.
	for _, c := range slices.Clone(candidates) {
		if e := url.QueryEscape(c); e != c {
			candidates = append(candidates, e)
		}
	}
	candidates = slices.DeleteFunc(candidates, func(s string) bool { return s == "" })
	slices.Sort(candidates)
	return slices.Compact(candidates)
}

// maskText replaces every secret the client knows of (configured, or a
// credential it holds) in s, for error text that a server may have echoed.
func (c *Client) maskText(s string) string {
	secrets := c.secretStrings()
	// Longest first, so that a secret containing another is masked whole.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, secret := range secrets {
		s = strings.ReplaceAll(s, secret, "***")
	}
	return s
}

// maskAPIError masks what a server wrote into an error answer.
func (c *Client) maskAPIError(e *APIError) {
	e.Message = c.maskText(e.Message)
	for k, v := range e.Params {
		if s, ok := v.(string); ok {
			e.Params[k] = c.maskText(s)
		}
	}
}

// secretStrings lists every non-empty secret the client knows of: the
// configured ones and the credentials it currently holds.
func (c *Client) secretStrings() []string {
	out := slices.Clone(c.secrets) // never append to the shared slice
	if s := c.session.peek(); s != "" {
		out = append(out, s)
	}
	if t := c.token.peek(); t != nil && t.Token != "" {
		out = append(out, t.Token)
	}
	return out
}

// maskCredential adds a credential acquired during a call to the masks of
// its log context.
func maskCredential(ctx context.Context, cred string) context.Context {
	if cred == "" {
		return ctx
	}
	ctx = tflog.SubsystemMaskAllFieldValuesStrings(ctx, LogSubsystem, cred)
	return tflog.SubsystemMaskMessageStrings(ctx, LogSubsystem, cred)
}

func logDebug(ctx context.Context, msg string, fields map[string]any) {
	tflog.SubsystemDebug(ctx, LogSubsystem, msg, fields)
}

// fallbackLog holds the kinds of slower path already reported at WARN (warnFallback):
// what the platform has shown of itself, for the rest of the process.
type fallbackLog struct{ seen sync.Map }

// reported records kind and reports whether it was recorded before.
func (f *fallbackLog) reported(kind string) bool {
	_, seen := f.seen.LoadOrStore(kind, true)
	return seen
}

// shown reports whether kind was recorded.
func (f *fallbackLog) shown(kind string) bool {
	_, seen := f.seen.Load(kind)
	return seen
}

// warnFallback logs at WARN, once per client and kind, that the provider takes a
// slower path because an answer of the platform could not be used (a user who sets
// TF_LOG=warn sees why a refresh reads score by score, say). Later occurrences log
// at DEBUG.
func (c *Client) warnFallback(ctx context.Context, kind, msg string, fields map[string]any) {
	if c.fallbacks.reported(kind) {
		logDebug(c.logContext(ctx), msg, fields)
		return
	}
	tflog.Warn(c.logContext(ctx), msg, fields)
}
