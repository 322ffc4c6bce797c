package provider

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tfsdklog"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/stopsignals"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/mediaplatform/mediaplatform"

// logName is the provider logger's name, as the plugin server derives it from Address.
const logName = "mediaplatform"

// closeTimeout bounds the logout at the end of the process. Terraform stops a provider
// with a graceful shutdown and kills it about 2 s later, so the logout must finish
// well within that.
const closeTimeout = 1500 * time.Millisecond

// Serve runs the provider as a Terraform plugin until Terraform shuts it down, then
// logs out the administrator sessions and removes the platform tokens the process
// acquired (the specification's required sequence). With debug, it serves a debugger
// session instead and leaves the log levels alone.
func Serve(ctx context.Context, version string, debug bool) error {
	if !debug {
		quietUnreadLogs()
	}
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	server, err := wrapServer(providerserver.NewProtocol6(New(version)())())
	if err != nil {
		return err
	}
	if !debug {
		// Started by Terraform: it stops the provider itself, and if it dies, the
		// provider removes its tokens and exits.
		stopSignals := outliveTermination(exitLogContext(ctx))
		defer stopSignals()
		stopWatch := watchParent(os.Getppid, parentPollInterval, func() { exitOrphaned(ctx) })
		defer stopWatch()
	}
	err = tf6server.Serve(Address, func() tfprotov6.ProviderServer { return server }, opts...)

	closeCtx, cancel := context.WithTimeout(exitLogContext(ctx), closeTimeout)
	defer cancel()
	if closeErr := CloseAll(closeCtx); closeErr != nil {
		// Not a failure of the run: the sessions and tokens expire on their own.
		tflog.Warn(closeCtx, "Closing the platform sessions failed; they expire on their own", map[string]any{"error": closeErr.Error()})
	}
	return err
}

// outliveTermination keeps every signal of stopsignals.Stops from killing the
// provider, as the plugin library does for SIGINT. Terminals, shells, CI runners
// (`timeout -s TERM`), systemd and CI servers' abort buttons signal the whole process
// group: Terraform stops gracefully on SIGINT and SIGTERM (it cancels the provider's
// operations, saves what they return, and then shuts the provider down), but a
// provider that died at once would lose the scores it had published to the state,
// and leave its platform token live. Terraform itself dies of a hang-up (SIGHUP),
// Ctrl-\ (SIGQUIT) and a write to an output nobody reads (SIGPIPE). The provider ends
// when Terraform shuts it down, or, should Terraform itself be gone, when watchParent
// notices and the provider has removed its credentials. It returns a function that
// restores the default.
func outliveTermination(ctx context.Context) (stop func()) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, stopsignals.Signals()...)
	done := make(chan struct{})
	go func() {
		// Each signal is logged once: the log of a SIGPIPE goes to the standard
		// error whose reader is gone, and would raise the next one.
		logged := map[os.Signal]bool{}
		for {
			select {
			case sig := <-signals:
				if !logged[sig] {
					logged[sig] = true
					tflog.Info(ctx, "Signal received: the provider goes on until Terraform shuts it down or, should "+
						"Terraform be gone, until it has removed its platform tokens and sessions", map[string]any{"signal": sig.String()})
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(signals)
		close(done)
	}
}

// parentPollInterval is how often the provider checks that Terraform is still there.
const parentPollInterval = time.Second

// watchParent calls orphaned once when the process's parent changes from the one it
// had at the start: Terraform was killed (kill -9, a crash) and the process was handed
// to init. Nobody will then shut the provider down, and its platform token would stay
// live until it expired. A process started by init itself is not watched. It returns
// a function that stops the watch.
func watchParent(getppid func() int, interval time.Duration, orphaned func()) (stop func()) {
	parent := getppid()
	done := make(chan struct{})
	if parent <= 1 {
		return func() {}
	}
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if getppid() != parent {
					orphaned()
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

// exitOrphaned removes the platform tokens and administrator sessions of a provider
// whose Terraform is gone, then ends the process. Nothing reads its output any more:
// a write to the closed stderr must fail, not end the process before the logout.
func exitOrphaned(ctx context.Context) {
	signal.Ignore(syscall.SIGPIPE)
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	_ = CloseAll(closeCtx)
	cancel()
	os.Exit(1)
}

// exitLogContext carries a provider logger for the logout at exit, which runs after
// the last request, so without the logger Terraform gives each request. It writes
// where that one does (the stderr of the process start, which Terraform reads to
// the end) under the same name and level variable, so TF_LOG shows the exit too.
func exitLogContext(ctx context.Context) context.Context {
	// Without ctx's cancellation: the process may be ending because it was cancelled.
	return tfsdklog.NewRootProviderLogger(context.WithoutCancel(ctx), tfsdklog.WithStderrFromInit(),
		tfsdklog.WithLogName(logName), tflog.WithLevelFromEnv("TF_LOG_PROVIDER", logName))
}

// quietUnreadLogs switches the plugin libraries' and the provider's logs off when no
// TF_LOG variable asks for them. Terraform then discards every provider log line, yet
// the libraries would still format and send a TRACE line for each call: profiles put
// that at about a quarter of the provider's CPU time in a large refresh
// (BENCHMARKS.md). With any TF_LOG variable set, the levels stay as the user chose.
func quietUnreadLogs() {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG=") || strings.HasPrefix(kv, "TF_LOG_PROVIDER") || strings.HasPrefix(kv, "TF_LOG_SDK") {
			return
		}
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_MEDIAPLATFORM"} {
		_ = os.Setenv(name, "OFF")
	}
}

// Clients created by this process, closed by CloseAll when the process ends.
var (
	liveClientsMu sync.Mutex
	liveClients   []*client.Client
)

func addLiveClient(c *client.Client) {
	liveClientsMu.Lock()
	defer liveClientsMu.Unlock()
	liveClients = append(liveClients, c)
}

// CloseAll closes every client this process created, concurrently and within ctx: each
// logs out its administrator session and removes its platform token. The main function
// calls it when the plugin server returns, that is when Terraform shuts the provider
// down. Closed clients leave the list, so a second call does nothing.
func CloseAll(ctx context.Context) error {
	liveClientsMu.Lock()
	clients := liveClients
	liveClients = nil
	liveClientsMu.Unlock()

	if len(clients) > 0 {
		tflog.Debug(ctx, "Provider exiting: logging out the administrator sessions and removing the platform tokens",
			map[string]any{"clients": len(clients)})
	}
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { errs[i] = c.Close(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
