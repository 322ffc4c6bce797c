package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testnet"
)

// leadFlow is one flow of the provider's calls: what it does with a client, and the
// first sentence a user reads when it fails (the lead, or the call's own sentence where
// the caller gives one instead).
type leadFlow struct {
	name string
	run  func(ctx context.Context, c *client.Client) error
	// own is the caller's sentence for an error with no lead ("" for none).
	own func(err error) string
}

// leadFlows are the flows whose requests the lead test fails one by one: the token
// flow (discovery, identity providers, grant), the administrator login and the
// settings, the publish, the reads of a score and of the list, the health report
// (the service registry).
func leadFlows(alias string) []leadFlow {
	return []leadFlow{
		{name: "token", run: func(ctx context.Context, c *client.Client) error {
			_, err := c.GrantAccessToken(ctx)
			return err
		}},
		{name: "settings", run: func(ctx context.Context, c *client.Client) error {
			_, err := c.GetExternalAuthentication(ctx)
			return err
		}},
		{name: "publish", run: func(ctx context.Context, c *client.Client) error {
			_, err := c.PublishScore(ctx, client.PublishScoreInput{ScoreURL: accScoreURL("leads-" + alias)})
			return err
		}, own: func(err error) string { return publishHint(err, "") }},
		{name: "read", run: func(ctx context.Context, c *client.Client) error {
			_, err := c.GetScore(ctx, alias)
			return err
		}},
		{name: "list", run: func(ctx context.Context, c *client.Client) error {
			_, err := c.ListScores(ctx, client.ListScoresInput{})
			return err
		}},
		{name: "health", run: func(ctx context.Context, c *client.Client) error {
			_, err := c.Health(ctx)
			return err
		}},
	}
}

// leadSettings are every setting a lead may name: the addresses, the credentials and
// a score's arguments. A lead's first sentence names the failing request's and no other.
var leadSettings = []string{"admin_url", "platform_url", "publishing_url", "registry_url", "publishing_service",
	"admin_username", "admin_password", "client_id", "client_secret", "basic_token", "username", "password",
	"score_url", "score_id"}

// bodySettings are the settings a request's body is built from, by its method and the
// end of its path, for the requests that send one: a 400 to them is about those, not the address.
// A hand-written list, since the body's origin is not on the wire.
var bodySettings = map[string][]string{
	"POST /auth/oauth2/ropc/default": {"username", "password", "client_id", "client_secret", "basic_token"},
	"POST /api/v1/login":             {"admin_username", "admin_password"},
	"POST /scores":                   {"score_url", "score_id"},
}

// failureClass is one way a request fails: an answer in the platform's place, or
// the request's address setting changed (address) so that its connection fails.
type failureClass struct {
	name    string
	answer  *faultproxy.Answer
	address func(address, closed string) string
}

var failureClasses = []failureClass{
	{name: "refused", address: func(address, closed string) string {
		return strings.Replace(address, hostOf(address), closed, 1)
	}},
	{name: "HTTPS against plain HTTP", address: func(address, _ string) string {
		return strings.Replace(address, "http://", "https://", 1)
	}},
	{"a page that is not the platform's", &faultproxy.Answer{Status: http.StatusOK,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: "<!DOCTYPE html><html><body>Blocked</body></html>"}, nil},
	{"400", &faultproxy.Answer{Status: http.StatusBadRequest, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"code": "gateway/BAD_REQUEST", "message": "bad request"}`}, nil},
	{"404", &faultproxy.Answer{Status: http.StatusNotFound, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: "404 page not found"}, nil},
	{"plain HTTP against TLS", &faultproxy.Answer{Status: http.StatusBadRequest,
		Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "Connection": {"close"}},
		Body:   "Client sent an HTTP request to an HTTPS server.\n"}, nil},
}

// requestSetting is the address setting of cfg that a request to path was built
// from: the one whose address is the longest prefix of path (the publishing and the
// registry addresses are derived from admin_url and platform_url).
func requestSetting(cfg client.Config, path string) string {
	best, setting := -1, ""
	for name, address := range map[string]string{"admin_url": cfg.AdminURL, "platform_url": cfg.PlatformURL} {
		p := strings.TrimRight(strings.TrimPrefix(address, "http://"+hostOf(address)), "/")
		if strings.HasPrefix(path, p+"/") && len(p) > best {
			best, setting = len(p), name
		}
	}
	return setting
}

func hostOf(address string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(address, "https://"), "http://")
	host, _, _ := strings.Cut(rest, "/")
	return host
}

// TestLeads_nameTheFailingRequestsSetting derives its cases from the flows: each flow
// runs once against the emulator behind the fault proxy, which records its requests;
// then, for each request and each failure class (its address refusing connections or
// written https:// for a plain HTTP port, a 400, a 404 that is no platform's, a TLS
// port's 400 to plain HTTP, a page that is not the platform's), the flow runs
// again with that request failing so, and the first sentence the user reads names the
// setting the request was built from (its address setting; for a 400 to a request
// with a body, the settings of the body) and no other. A request added to a flow gets
// its cases without anyone listing it. A 404 to a score's own address (the score is
// gone) or to the health report (which a platform may not serve) is an answer, not a
// wrong setting: those cases are left out.
func TestLeads_nameTheFailingRequestsSetting(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "failing requests one at a time")
	cfg := emu.config()
	cfg.MaxRetries = client.NoRetries // a failure is what the test is after, at once
	ctx := context.Background()
	alias := accName()
	seed, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.PublishScore(ctx, client.PublishScoreInput{ScoreURL: accScoreURL(alias), Alias: alias}); err != nil {
		t.Fatal(err)
	}
	_ = seed.Close(ctx)
	closed := testnet.ClosedAddress(t)

	for _, flow := range leadFlows(alias) {
		proxy.Clear()
		before := len(proxy.Requests())
		c, err := client.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := flow.run(ctx, c); err != nil {
			t.Fatalf("flow %s without a fault: %v", flow.name, err)
		}
		_ = c.Close(ctx)
		var seen []string
		for _, r := range proxy.Requests()[before:] {
			key := r.Method + " " + r.Path
			if !slices.Contains(seen, key) && !strings.Contains(key, "/logout") && r.Method != http.MethodDelete {
				seen = append(seen, key)
			}
		}
		for _, key := range seen {
			method, path, _ := strings.Cut(key, " ")
			setting := requestSetting(cfg, path)
			for _, class := range failureClasses {
				want := []string{setting}
				var body []string
				for suffix, settings := range bodySettings {
					if m, p, _ := strings.Cut(suffix, " "); m == method && strings.HasSuffix(path, p) {
						body = settings
					}
				}
				if class.name == "400" && body != nil {
					want = body
				}
				if class.name == "404" && (strings.Contains(path, "/scores/") || strings.HasSuffix(path, "/core/health")) {
					// A 404 there is an answer, not a wrong setting: the score is gone, or
					// the platform does without the health report, which the specification
					// says not to rely on.
					continue
				}
				name := fmt.Sprintf("%s/%s %s/%s", flow.name, method, path, class.name)
				t.Run(name, func(t *testing.T) {
					failed := cfg
					proxy.Clear()
					if class.address != nil {
						address := map[string]*string{"admin_url": &failed.AdminURL, "platform_url": &failed.PlatformURL}[setting]
						*address = class.address(*address, closed)
					} else {
						proxy.Add(faultproxy.Fault{Method: method, Path: "^" + regexp.QuoteMeta(path) + "$", Respond: class.answer})
					}
					c, err := client.New(failed)
					if err != nil {
						t.Fatal(err)
					}
					// The exit's requests go through a proxy without the fault.
					defer func() { proxy.Clear(); _ = c.Close(ctx) }()
					err = flow.run(ctx, c)
					if err == nil {
						t.Skip("the flow does without this request")
					}
					lead := causeLead(err)
					if lead == "" && flow.own != nil {
						lead = flow.own(err)
					}
					checkFirstSentence(t, firstSentence(lead), want, err)
				})
			}
		}
	}
}

// checkFirstSentence checks that sentence names one of want, and no other setting.
func checkFirstSentence(t *testing.T, sentence string, want []string, err error) {
	t.Helper()
	var named, others []string
	for _, s := range leadSettings {
		if regexp.MustCompile(`(^|[^a-z_])` + s + `([^a-z_]|$)`).MatchString(sentence) {
			if slices.Contains(want, s) {
				named = append(named, s)
			} else {
				others = append(others, s)
			}
		}
	}
	if len(named) == 0 || len(others) > 0 {
		t.Errorf("the first sentence names %v and %v, want one of %v alone: %q\n(error: %v)", named, others, want, sentence, err)
	}
}
