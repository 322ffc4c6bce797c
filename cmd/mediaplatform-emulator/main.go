// Command mediaplatform-emulator runs the in-memory platform emulator on one
// listener, for the demo and for developing configurations offline.
//
// The first line it prints on stdout is one JSON object with the three base
// addresses, for scripts:
//
//	{"admin_url": "http://127.0.0.1:8080/api/v1", "platform_url": "http://127.0.0.1:8080", "publishing_url": "…"}
//
// Human-readable lines with the demo credentials follow. It stops cleanly on SIGINT
// and SIGTERM.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// shutdownTimeout bounds the wait for in-flight requests on a signal.
const shutdownTimeout = 3 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, new(usageError)):
		fmt.Fprintln(os.Stderr, "mediaplatform-emulator:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "mediaplatform-emulator:", err)
		os.Exit(1)
	}
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// config is the parsed command line.
type config struct {
	listen            string
	tls               bool
	caCertFile        string
	tokenLifetime     time.Duration
	sessionIdle       time.Duration
	renderDelay       time.Duration
	publishingService string
	readings          emulator.Readings
	clockOffset       time.Duration
	envFile           string
	seedFile          string
	accountsFile      string
	requireHeader     *emulator.HeaderRequirement
	clientCAFile      string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("mediaplatform-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "`address` to listen on; port 0 picks a free port")
	fs.BoolVar(&c.tls, "tls", false, "serve HTTPS with a self-signed certificate generated at start (for 127.0.0.1, ::1 and localhost)")
	fs.StringVar(&c.caCertFile, "ca-cert-file", "", "with -tls, write the CA certificate (PEM) to this `path` before serving")
	fs.DurationVar(&c.tokenLifetime, "token-lifetime", 900*time.Second, "lifetime of platform access tokens")
	fs.DurationVar(&c.sessionIdle, "session-idle", 30*time.Minute, "idle expiry of administrator sessions")
	fs.DurationVar(&c.renderDelay, "render-delay", 500*time.Millisecond, "time a score spends in each of pending and rendering; 0 for none")
	fs.StringVar(&c.publishingService, "publishing-service", emulator.DefaultPublishingService, "publishing service `name` in publishing_url")
	fs.Func("reading", "switch on another legal `reading` of the specification (contract §V); repeat the flag or "+
		"separate names with commas: "+strings.Join(emulator.ReadingNames(), ", "), func(v string) error {
		for name := range strings.SplitSeq(v, ",") {
			if err := c.readings.Set(strings.TrimSpace(name)); err != nil {
				return err
			}
		}
		return nil
	})
	fs.StringVar(&c.envFile, "env-file", "", "once serving, write the MEDIAPLATFORM_* settings (addresses and credentials) "+
		"to this `path`, one KEY=value line each, for `set -a; . PATH` or $GITHUB_ENV")
	fs.StringVar(&c.seedFile, "seed", "", "preload the platform from this JSON `file` (settings, scores, command scripts); "+
		"a reset returns to it")
	fs.StringVar(&c.accountsFile, "accounts", "", "take the users and OAuth clients from this JSON `file` instead of the "+
		"built-in ones")
	fs.DurationVar(&c.clockOffset, "clock-offset", 0, "run the platform's clock this far from this machine's "+
		"(its timestamps and Date headers), e.g. -3h for a platform three hours behind")
	fs.Func("require-header", "stand behind a gateway that demands the access header `NAME=VALUE` on every platform "+
		"request: 401 (an HTML page) without it, 403 with another value", func(v string) error {
		if c.requireHeader != nil {
			return errors.New("only one access header can be required")
		}
		name, value, found := strings.Cut(v, "=")
		if !found {
			return errors.New("want NAME=VALUE")
		}
		if err := (emulator.HeaderRequirement{Name: name, Value: value}).Validate(); err != nil {
			return err
		}
		c.requireHeader = &emulator.HeaderRequirement{Name: name, Value: value}
		return nil
	})
	fs.StringVar(&c.clientCAFile, "client-ca", "", "with -tls, stand behind a gateway that requires a client certificate "+
		"signed by a CA of this PEM `file` in the TLS handshake")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, usageError{err.Error()}
	}
	switch {
	case fs.NArg() > 0:
		return c, usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	case c.caCertFile != "" && !c.tls:
		return c, usageError{"-ca-cert-file needs -tls"}
	case c.clientCAFile != "" && !c.tls:
		return c, usageError{"-client-ca needs -tls: a client certificate is asked for in the TLS handshake"}
	case c.tokenLifetime <= 0:
		return c, usageError{"-token-lifetime must be positive"}
	case c.sessionIdle <= 0:
		return c, usageError{"-session-idle must be positive"}
	case c.clockOffset%time.Second != 0 || c.clockOffset > 87840*time.Hour || c.clockOffset < -87840*time.Hour:
		return c, usageError{"-clock-offset must be whole seconds, within ten years either way"}
	case c.renderDelay < 0:
		return c, usageError{"-render-delay must not be negative"}
	case c.publishingService == "" || strings.ContainsAny(c.publishingService, "/;?#% \t"):
		return c, usageError{"-publishing-service must be a non-empty path segment without / ; ? # % or spaces"}
	}
	return c, nil
}

func (c config) options() emulator.Options {
	o := emulator.Options{
		PublishingService: c.publishingService,
		TokenLifetime:     c.tokenLifetime,
		SessionIdle:       c.sessionIdle,
		RenderDelay:       c.renderDelay,
		Faults: emulator.Faults{Readings: c.readings, ClockOffsetSeconds: int(c.clockOffset / time.Second),
			RequireHeader: c.requireHeader},
	}
	if o.RenderDelay == 0 {
		o.RenderDelay = -1 // Options reads 0 as "default"; the flag's 0 means none
	}
	return o
}

// addresses is the first line of output.
type addresses struct {
	AdminURL      string `json:"admin_url"`
	PlatformURL   string `json:"platform_url"`
	PublishingURL string `json:"publishing_url"`
}

// run serves until ctx ends, then shuts the server down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	opts := cfg.options()
	if cfg.accountsFile != "" {
		if opts.Users, opts.Clients, err = readAccounts(cfg.accountsFile); err != nil {
			return err
		}
	}
	if cfg.clientCAFile != "" {
		if opts.Faults.ClientCACertPEM, err = readClientCAs(cfg.clientCAFile); err != nil {
			return err
		}
	}
	if cfg.seedFile != "" {
		if opts.Seed, err = emulator.ReadSeedFile(cfg.seedFile); err != nil {
			return err
		}
		if err := opts.Seed.Validate(opts); err != nil {
			return fmt.Errorf("-seed %s: %w", cfg.seedFile, err)
		}
	}
	emu := emulator.New(opts)
	settings := envSettings(emu.Options())

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	host, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1" // listening everywhere: advertise the loopback address
	}

	srv := &http.Server{
		Handler:           emu,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(stderr, "mediaplatform-emulator: ", log.LstdFlags),
	}
	scheme := "http"
	var caPEM []byte
	if cfg.tls {
		var cert tls.Certificate
		cert, caPEM, err = emulator.SelfSignedCertificate(host)
		if err != nil {
			return err
		}
		if cfg.caCertFile != "" {
			// Written before the addresses are printed, so it is there for whoever reads them.
			if err := os.WriteFile(cfg.caCertFile, caPEM, 0o644); err != nil {
				return fmt.Errorf("writing -ca-cert-file: %w", err)
			}
		}
		// Through the emulator, which asks for a client certificate while the gateway wants one.
		srv.TLSConfig = emu.TLSConfig(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}
	base := scheme + "://" + net.JoinHostPort(host, port)

	first, err := json.Marshal(addresses{
		AdminURL:      emu.AdminURL(base),
		PlatformURL:   emu.PlatformURL(base),
		PublishingURL: emu.PublishingURL(base),
	})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", first); err != nil {
		return err
	}
	printBanner(stdout, base, cfg, emu.Options(), caPEM)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if cfg.envFile != "" {
		// Written once the listener accepts: whoever waits for the file can go on.
		if err := writeEnvFile(cfg.envFile, emu, base, settings); err != nil {
			_ = srv.Close()
			return err
		}
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		fmt.Fprintln(stderr, "mediaplatform-emulator: requests still running, closing:", err)
		_ = srv.Close()
	}
	fmt.Fprintln(stderr, "mediaplatform-emulator: stopped")
	return nil
}

func printBanner(w io.Writer, base string, cfg config, opts emulator.Options, caPEM []byte) {
	lines := []string{"mediaplatform emulator serving on " + base + " (control surface " + base + "/_emulator/)"}
	lines = append(lines, accountLines(opts)...)
	lines = append(lines, fmt.Sprintf("  token lifetime %s, session idle %s, render delay %s", cfg.tokenLifetime, cfg.sessionIdle, cfg.renderDelay))
	if names := opts.Faults.Readings.Names(); len(names) > 0 {
		lines = append(lines, "  readings of the specification: "+strings.Join(names, ", "))
	}
	if cfg.clockOffset != 0 {
		lines = append(lines, "  platform clock offset: "+cfg.clockOffset.String())
	}
	if h := opts.Faults.RequireHeader; h != nil {
		// The name only: the value is a secret of the gateway.
		lines = append(lines, "  gateway: requires the access header "+h.Name)
	}
	if cfg.clientCAFile != "" {
		lines = append(lines, "  gateway: requires a client certificate signed by a CA of "+cfg.clientCAFile)
	}
	if opts.Seed != nil {
		lines = append(lines, fmt.Sprintf("  seeded from %s: %d scores, %d command scripts, settings %t", cfg.seedFile,
			len(opts.Seed.Scores), len(opts.Seed.Commands), len(opts.Seed.Settings) > 0))
	}
	if caPEM != nil {
		if cfg.caCertFile != "" {
			lines = append(lines, "  CA certificate (also written to "+cfg.caCertFile+"):")
		} else {
			lines = append(lines, "  CA certificate:")
		}
		lines = append(lines, strings.TrimRight(string(caPEM), "\n"))
	}
	lines = append(lines, "Stop with Ctrl-C.")
	_, _ = fmt.Fprintln(w, strings.Join(lines, "\n"))
}

// readClientCAs reads -client-ca: one or more PEM CA certificates and nothing else.
func readClientCAs(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("-client-ca: %w", err)
	}
	if err := emulator.CheckClientCAs(string(b)); err != nil {
		return "", fmt.Errorf("-client-ca %s: %w", path, err)
	}
	return string(b), nil
}
