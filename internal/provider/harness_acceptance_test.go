package provider

// The acceptance test harness: an emulator per test (or the external platform),
// the provider served to Terraform in the test process, the names tests create, and
// the checks the tests share.

import (
	"context"
	"errors"
	"flag"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testcollector"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testparallel"
)

// testRenderDelay keeps scores in pending and rendering long enough to be seen, and
// short enough for fast tests.
const testRenderDelay = acctest.RenderDelay

// envAccExternal, set to 1, points the acceptance tests at the platform named by the
// provider's MEDIAPLATFORM_* environment variables instead of an in-process emulator
// per test.
const envAccExternal = "MEDIAPLATFORM_ACC_EXTERNAL"

// accPrefix starts the name of every object the acceptance tests create (score
// aliases, score file names, domain names), so that the sweeper can find what an
// interrupted run left behind.
const accPrefix = acctest.NamePrefix

// accName returns a fresh object name: accPrefix and a random suffix.
var accName = acctest.Name

// accScoreURL is the address of a score file named name (which starts with accPrefix,
// so that the sweeper also recognises scores without an alias).
var accScoreURL = acctest.ScoreURL

// accBrokenScoreURL is the address of a score file the platform cannot render: its
// host does not exist (the emulator fails every host under .invalid).
func accBrokenScoreURL(name string) string {
	return "https://scores.invalid/" + name + ".sib"
}

// accDomain is a fresh external authentication domain name.
func accDomain() string {
	return accName() + ".example"
}

// externalPlatform holds the addresses and accounts of the external platform, read
// from the environment before any test changes it; nil unless MEDIAPLATFORM_ACC_EXTERNAL
// is set.
var externalPlatform = loadExternalPlatform(os.Getenv)

func loadExternalPlatform(getenv func(string) string) *client.Config {
	if on, _ := strconv.ParseBool(getenv(envAccExternal)); !on {
		return nil
	}
	var cfg client.Config
	cfg.ApplyEnv(getenv)
	return &cfg
}

// missingExternalSettings names the environment variables external mode needs and
// cfg lacks.
func missingExternalSettings(cfg client.Config) []string {
	var missing []string
	for _, s := range []struct{ value, env string }{
		{cfg.AdminURL, client.EnvAdminURL}, {cfg.AdminUsername, client.EnvAdminUsername},
		{cfg.AdminPassword, client.EnvAdminPassword}, {cfg.PlatformURL, client.EnvPlatformURL},
		{cfg.Username, client.EnvUsername}, {cfg.Password, client.EnvPassword},
	} {
		if s.value == "" {
			missing = append(missing, s.env)
		}
	}
	if cfg.BasicToken == "" && (cfg.ClientID == "" || cfg.ClientSecret == "") {
		missing = append(missing, client.EnvClientID+" and "+client.EnvClientSecret+" (or "+client.EnvBasicToken+")")
	}
	return missing
}

// testEmulator is the platform one acceptance test runs against: by default an
// in-process emulator of its own; with MEDIAPLATFORM_ACC_EXTERNAL=1 the external
// platform of the MEDIAPLATFORM_* variables, shared by every test of the run.
//
// Addresses, the default accounts' provider configuration and an API client work on
// both. What only an emulator offers (request and login counts, faults, expiry,
// scripted commands, options, its other accounts) is reached through control, which
// skips the test on an external platform, or optionalControl, for a check that is
// extra to the test's point and is left out there.
type testEmulator struct {
	// URL is scheme://host of the in-process emulator's listener; empty on an
	// external platform.
	URL string

	emu *emulator.Emulator // nil on an external platform; tests go through control, never here
	t   *testing.T         // the test it serves
	cfg client.Config      // addresses and default accounts
}

// newTestEmulator starts an emulator on a local listener, closed when the test ends;
// in external mode it returns the external platform instead.
func newTestEmulator(t *testing.T) *testEmulator {
	t.Helper()
	if externalPlatform != nil {
		if os.Getenv(resource.EnvTfAcc) == "" {
			t.Skip("the external platform is for acceptance tests: set TF_ACC=1")
		}
		if missing := missingExternalSettings(*externalPlatform); len(missing) > 0 {
			t.Fatalf("%s=1 needs the platform's settings; missing: %s", envAccExternal, strings.Join(missing, ", "))
		}
		return &testEmulator{t: t, cfg: *externalPlatform}
	}
	return startTestEmulator(t, emulator.Options{RenderDelay: testRenderDelay})
}

// newTestEmulatorWith starts an emulator with options of its own, for a test that
// needs them (what names them: "a 6 s token lifetime"); on an external platform it
// skips the test.
func newTestEmulatorWith(t *testing.T, what string, opts emulator.Options) *testEmulator {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: " + what)
	}
	return startTestEmulator(t, opts)
}

func startTestEmulator(t *testing.T, opts emulator.Options) *testEmulator {
	t.Helper()
	target := acctest.StartEmulator(t, opts) // with the check that the test logged out
	return servedTestEmulator(t, target.Emulator, target.URL)
}

// servedTestEmulator is the target of an emulator a test serves itself at base
// (scheme://host), e.g. over TLS.
func servedTestEmulator(t *testing.T, emu *emulator.Emulator, base string) *testEmulator {
	return &testEmulator{emu: emu, URL: base, t: t, cfg: acctest.EmulatorConfig(emu, base)}
}

// control returns the in-process emulator to a test that needs what only an emulator
// offers, named by what ("request counts", "scripted commands"). On an external
// platform it skips the test with that reason: call it before the test creates
// anything.
func (e *testEmulator) control(t *testing.T, what string) *emulator.Emulator {
	t.Helper()
	if e.emu == nil {
		t.Skip("needs the emulator's control surface: " + what)
	}
	return e.emu
}

// optionalControl returns the in-process emulator for a check that is extra to the
// test's point (that a plan-time error came before any request), or nil on an
// external platform, where the caller leaves that check out; the log says so.
func (e *testEmulator) optionalControl(t *testing.T, what string) *emulator.Emulator {
	t.Helper()
	if e.emu == nil {
		t.Logf("external platform: not checked: %s", what)
	}
	return e.emu
}

// shared reports whether other tests use the platform at the same time (external
// mode): a check over every score on it cannot hold there.
func (e *testEmulator) shared() bool { return e.emu == nil }

// config is the client configuration of the default accounts.
func (e *testEmulator) config() client.Config { return e.cfg }

// adminURL, platformURL and publishingURL are the platform's three base addresses.
func (e *testEmulator) adminURL() string    { return e.config().AdminURL }
func (e *testEmulator) platformURL() string { return e.config().PlatformURL }
func (e *testEmulator) publishingURL() string {
	if e.emu != nil {
		return e.emu.PublishingURL(e.URL)
	}
	// Derived from admin_url unless set, as the provider derives it.
	c, err := client.New(e.config())
	if err != nil {
		return ""
	}
	defer func() { _ = c.Close(context.Background()) }()
	u, _ := c.PublishingURL()
	return u
}

// viewerURLPattern matches the viewer_url of a view on this platform.
func (e *testEmulator) viewerURLPattern() *regexp.Regexp {
	if e.emu != nil {
		return regexp.MustCompile(`^` + regexp.QuoteMeta(e.URL) + `/viewer/\S+$`)
	}
	return regexp.MustCompile(`^https?://\S+/viewer/\S+$`)
}

// providerConfig is a provider block for the default accounts. On an external
// platform the values come from the MEDIAPLATFORM_* variables, written out, so that
// the configuration is the same in both modes and also reaches a provider whose
// environment lacks them (the real binary's).
func (e *testEmulator) providerConfig() string {
	return providerBlock(e.config())
}

// providerConfigWith is providerConfig with the given admin and platform passwords:
// the emulator's accounts only, since wrong passwords could lock a real account out.
func providerConfigWith(e *testEmulator, adminPassword, password string) string {
	e.control(e.t, "its accounts, for refused logins")
	cfg := e.config()
	cfg.AdminPassword, cfg.Password = adminPassword, password
	return providerBlock(cfg)
}

// providerBlock is a provider block with every setting of cfg that is set.
var providerBlock = acctest.ProviderBlock

// newClient returns an API client for the default accounts; the caller closes it.
func (e *testEmulator) newClient() (*client.Client, error) {
	return client.New(e.config())
}

// client returns an API client for out-of-band changes (drift), closed when the test ends.
func (e *testEmulator) client(t *testing.T) *client.Client {
	t.Helper()
	c, err := e.newClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// deleteAtCleanup returns a function that records a score the test published out of
// band (Terraform destroys its own); the recorded scores are deleted when the test
// ends. The function is safe for concurrent use.
func (e *testEmulator) deleteAtCleanup(t *testing.T) (record func(id string)) {
	t.Helper()
	var mu sync.Mutex
	var ids []string
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if len(ids) == 0 {
			return
		}
		c, err := e.newClient()
		if err != nil {
			t.Error(err)
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		next := make(chan string)
		for range 8 {
			wg.Go(func() {
				for id := range next {
					if err := c.DeleteScore(ctx, id, true); err != nil && !client.IsNotFound(err) {
						t.Errorf("deleting score %s at the end of the test: %v", id, err)
					}
				}
			})
		}
		for _, id := range ids {
			next <- id
		}
		close(next)
		wg.Wait()
	})
	return func(id string) {
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
	}
}

// settingsMu serialises the tests that write the external authentication settings,
// a singleton, on a shared platform.
var settingsMu sync.Mutex

// takeSettings is called by a test that writes the external authentication settings,
// before it does: on a shared platform it waits until no other test holds them, and
// when the test ends it puts back the settings it found.
func (e *testEmulator) takeSettings(t *testing.T) {
	t.Helper()
	if e.shared() {
		settingsMu.Lock()
		t.Cleanup(settingsMu.Unlock) // registered first, so released last
	}
	// Each client logs out at once, so that no session outlives a step.
	c, err := e.newClient()
	if err != nil {
		t.Fatal(err)
	}
	found, err := c.GetExternalAuthentication(context.Background())
	_ = c.Close(context.Background())
	if err != nil {
		t.Fatalf("reading the external authentication settings, to restore them at the end: %v", err)
	}
	t.Cleanup(func() {
		c, err := e.newClient()
		if err != nil {
			t.Error(err)
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		ctx := context.Background()
		restore := *found
		if restore.DomainName == "" {
			// Never configured: the API cannot store an empty domain, so the nearest
			// state is external authentication switched off.
			current, err := c.GetExternalAuthentication(ctx)
			if err != nil {
				t.Errorf("restoring the external authentication settings: %v", err)
				return
			}
			if current.DomainName == "" {
				return // still never configured
			}
			restore = client.ExternalAuthentication{DomainName: current.DomainName}
		}
		if _, err := c.PutExternalAuthentication(ctx, restore); err != nil {
			t.Errorf("restoring the external authentication settings: %v", err)
		}
	})
}

// testProviderFactories serves a fresh provider instance to every Terraform command,
// as the real binary does (one process per command), and closes the clients of those
// instances when the test ends, as the binary does when Terraform shuts it down: every
// test logs out its sessions and removes its tokens, on an emulator or a real platform.
func testProviderFactories(t *testing.T) map[string]func() (tfprotov6.ProviderServer, error) {
	t.Helper()
	var tp trackedProviders
	t.Cleanup(func() { tp.closeClients(t) })
	return tp.factories()
}

// trackedProviders serves a fresh provider instance to every Terraform command and
// remembers the instances, so that the test can close their clients at the end as the
// provider binary does when Terraform ends it. (In-process providers are never shut
// down that way, and CloseAll would also close the clients of tests running in
// parallel.)
type trackedProviders struct {
	mu        sync.Mutex
	providers []*mediaplatformProvider
}

func (tp *trackedProviders) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return tp.factoriesOf(func(p *mediaplatformProvider) provider.Provider { return p })
}

// factoriesOf serves what serve makes of each fresh provider instance, e.g. a variant
// of it that an earlier release of the provider stands in for.
func (tp *trackedProviders) factoriesOf(serve func(*mediaplatformProvider) provider.Provider) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mediaplatform": func() (tfprotov6.ProviderServer, error) {
			p, ok := New("test")().(*mediaplatformProvider)
			if !ok {
				return nil, errors.New("New does not return a *mediaplatformProvider")
			}
			tp.mu.Lock()
			tp.providers = append(tp.providers, p)
			tp.mu.Unlock()
			server, err := providerserver.NewProtocol6WithError(serve(p))()
			if err != nil {
				return nil, err
			}
			return wrapServer(server)
		},
	}
}

// closeClients logs out and removes the tokens of every client the providers made.
func (tp *trackedProviders) closeClients(t *testing.T) {
	t.Helper()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, p := range tp.providers {
		p.mu.Lock()
		c := p.client
		p.mu.Unlock()
		if c == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.Close(ctx)
		cancel()
		if err != nil {
			t.Errorf("closing a provider's client: %v", err)
		}
	}
}

// expectNoRequests fails the test if the emulator served any platform request. On
// an external platform it checks nothing: other tests use it at the same time.
func expectNoRequests(t *testing.T, e *testEmulator) {
	t.Helper()
	emu := e.optionalControl(t, "that no request reached the platform")
	if emu == nil {
		return
	}
	if stats := emu.Stats(); stats.TotalRequests() != 0 {
		t.Errorf("the emulator served %d requests, want none: %v", stats.TotalRequests(), stats.Requests)
	}
}

// blockConfig is the configuration of one block, header (`data "mediaplatform_scores"
// "test"`) with body as its arguments, after the provider block of the default accounts.
func blockConfig(emu *testEmulator, header string) func(body string) string {
	return func(body string) string {
		return emu.providerConfig() + header + " {\n  " + body + "\n}\n"
	}
}

// errorPattern matches the given phrases in order, as Terraform prints them: it wraps
// diagnostics at word boundaries, so every space matches any run of white space.
func errorPattern(phrases ...string) *regexp.Regexp {
	quoted := make([]string, len(phrases))
	for i, p := range phrases {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(strings.Join(quoted, `[\s\S]*`))
}

// Helpers shared by the acceptance tests of the score data sources.

// dsListRoute is the emulator's stats key of GET /scores.
func dsListRoute(emu *emulator.Emulator) string {
	return "GET " + emu.PublishingURL("") + "/scores"
}

// dsPublishScores publishes the scores in order, waits until each has rendered, and
// returns them as the platform then reports them, in the list's order (creation
// time, then UUID). They are deleted when the test ends.
func dsPublishScores(t *testing.T, emu *testEmulator, inputs ...client.PublishScoreInput) []*client.Score {
	t.Helper()
	c := emu.client(t)
	deleteAtEnd := emu.deleteAtCleanup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids := make([]string, 0, len(inputs))
	for _, in := range inputs {
		s, err := c.PublishScore(ctx, in)
		if err != nil {
			t.Fatalf("publishing %+v: %v", in, err)
		}
		ids = append(ids, s.ID)
		deleteAtEnd(s.ID)
	}
	scores := make([]*client.Score, 0, len(ids))
	for _, id := range ids {
		s, err := c.WaitForRendering(ctx, id)
		if err != nil {
			t.Fatalf("waiting for score %s: %v", id, err)
		}
		scores = append(scores, s)
	}
	dsSortScores(scores)
	return scores
}

// dsSortScores sorts scores in the list's order: creation time, then UUID.
func dsSortScores(scores []*client.Score) {
	slices.SortStableFunc(scores, func(a, b *client.Score) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// dsScoreAttributes are the checks of every attribute a data source reports for s,
// other than id and uuid.
func dsScoreAttributes(s *client.Score) map[string]knownvalue.Check {
	optional := func(v string) knownvalue.Check {
		if v == "" {
			return knownvalue.Null()
		}
		return knownvalue.StringExact(v)
	}
	renderings := make([]knownvalue.Check, 0, len(s.Renderings))
	for _, r := range s.Renderings {
		renderings = append(renderings, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"format": knownvalue.StringExact(r.Format),
			"pages":  knownvalue.Int64Exact(int64(r.Pages)),
		}))
	}
	return map[string]knownvalue.Check{
		"score_id":   optional(s.Alias),
		"score_url":  knownvalue.StringExact(s.ScoreURL),
		"transpose":  knownvalue.Bool(s.Transpose),
		"status":     knownvalue.StringExact(s.Status),
		"created_at": knownvalue.StringExact(s.CreatedAt.UTC().Format(time.RFC3339Nano)),
		"updated_at": knownvalue.StringExact(s.UpdatedAt.UTC().Format(time.RFC3339Nano)),
		"page_count": knownvalue.Int64Exact(int64(s.PageCount())),
		"publisher":  optional(s.Publisher),
		"renderings": knownvalue.ListExact(renderings),
	}
}

// dsScoreObject checks one element of mediaplatform_scores.scores: every attribute.
func dsScoreObject(s *client.Score) knownvalue.Check {
	attrs := dsScoreAttributes(s)
	attrs["id"] = knownvalue.StringExact(s.ID)
	return knownvalue.ObjectExact(attrs)
}

// dsScoreList checks a whole list of scores, in order.
func dsScoreList(scores []*client.Score) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(scores))
	for _, s := range scores {
		checks = append(checks, dsScoreObject(s))
	}
	return knownvalue.ListExact(checks)
}

// dsExpect is statecheck.ExpectKnownValue on a top-level attribute.
func dsExpect(address, attribute string, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New(attribute), check)
}

// dsPath builds a state path from attribute names (strings) and list indexes (ints).
func dsPath(first string, steps ...any) tfjsonpath.Path {
	p := tfjsonpath.New(first)
	for _, s := range steps {
		switch v := s.(type) {
		case int:
			p = p.AtSliceIndex(v)
		case string:
			p = p.AtMapKey(v)
		}
	}
	return p
}

// providerConfigPlus is providerConfig with more provider arguments.
func providerConfigPlus(e *testEmulator, arguments string) string {
	config := strings.TrimRight(e.providerConfig(), "\n")
	return strings.TrimSuffix(config, "}") + "  " + arguments + "\n}\n"
}

// sharedProviderFactories serve the same provider instance, and so the same client,
// to every Terraform command: a client that lives across runs, whose session and
// token can expire between them.
func sharedProviderFactories(p provider.Provider) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mediaplatform": func() (tfprotov6.ProviderServer, error) {
			return providerserver.NewProtocol6WithError(p)()
		},
	}
}

// TestMain runs the tests, or with -sweep the sweepers instead.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("sweep"); f == nil || f.Value.String() == "" {
		clearProviderEnvironment()
	}
	acctest.RefuseSkippedAcc()
	testcollector.CollectLess() // before CommandsWithoutCollector sets GOGC for the commands
	if os.Getenv(resource.EnvTfAcc) != "" {
		testparallel.Default(acceptancePerCore * runtime.GOMAXPROCS(0))
		acctest.CommandsWithoutCollector()
		acctest.CommandsHearStops()
	}
	resource.TestMain(removingProviderBuild{m})
}

// acceptancePerCore is how many parallel tests the acceptance run gives each core
// when -parallel is not given. An acceptance test spends most of its time waiting for
// the terraform processes it runs (about 90 % of the package's terraform commands come
// from resource.Test) and for the platform's delays, not computing: at go test's
// default of one test per core, the package took 689 s of a .ci/run on a 2-core
// machine that was half idle (1.08 cores busy); run alone with -race at three per
// core it took 446 s with 1.6 cores busy (issue 45's note). Beside other work (two
// busy loops, `yes > /dev/null`), the cores are shared by runnable threads, and more
// tests at once keep more of ours runnable: the acceptance phase of a clean-clone
// .ci/run took 301 s at three per core and 277 s at five (issue 63's note).
const acceptancePerCore = 5

// removingProviderBuild runs the tests, then removes the provider binary they built.
type removingProviderBuild struct{ m *testing.M }

func (r removingProviderBuild) Run() int {
	defer acctest.RemoveProviderBuild()
	return r.m.Run()
}

// clearProviderEnvironment removes the MEDIAPLATFORM_* variables from the test
// process: every test configures the provider explicitly (in external mode with the
// values read before, in externalPlatform), and a variable left in place would fill
// in what a test leaves out on purpose, or point an in-process emulator's test at
// the external platform.
func clearProviderEnvironment() {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "MEDIAPLATFORM_") {
			_ = os.Unsetenv(name)
		}
	}
}
