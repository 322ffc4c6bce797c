// Package emulatortest runs the in-process emulator for the tests of every package,
// as random's internal/randomtest serves random's tests. It gives:
//
//   - Start: an emulator with options on an httptest server, closed when the test
//     ends; Serve for an emulator the test configured before its first request (a
//     fake clock, say);
//   - StartTLS and ServeTLS: the same over TLS, with the server's certificate as PEM
//     (Server.CertPEM) and an HTTP client that trusts it (Server.Client);
//   - the platform's base addresses: AdminURL, PlatformURL, PublishingURL and
//     RegistryURL;
//   - the default accounts of the contract's section G (AdminUsername, Username,
//     ClientID, … below), defined once in the emulator (internal/emulator/accounts.go);
//   - ExpectLoggedOut: the check, when the test ends, that its clients left no
//     administrator session and no access token behind.
//
// It imports neither the client nor the provider: the client's tests are in package
// client and could not import a package that imports it.
package emulatortest

import (
	"crypto/tls"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// The default accounts (contract section G), by the names of the client's Config.
const (
	AdminUsername  = emulator.DefaultAdminName
	AdminPassword  = emulator.DefaultAdminPassword
	Username       = emulator.DefaultUserName
	Password       = emulator.DefaultUserPassword
	ViewerUsername = emulator.DefaultViewerName
	ViewerPassword = emulator.DefaultViewerPassword
	ClientID       = emulator.DefaultClientID
	ClientSecret   = emulator.DefaultClientSecret
)

// Server is one emulator on an httptest server of its own.
type Server struct {
	// Emulator is the emulator served: its Stats, SetFaults, Expire, ….
	Emulator *emulator.Emulator
	// URL is scheme://host of the listener.
	URL string
	// HTTP is the httptest server.
	HTTP *httptest.Server
}

// Start serves a new emulator with opts over plain HTTP until the test ends.
func Start(t testing.TB, opts emulator.Options) *Server {
	t.Helper()
	return Serve(t, emulator.New(opts))
}

// Serve serves e, which the caller may have configured before any request can reach
// it, over plain HTTP until the test ends.
func Serve(t testing.TB, e *emulator.Emulator) *Server {
	t.Helper()
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return &Server{Emulator: e, URL: srv.URL, HTTP: srv}
}

// StartTLS serves a new emulator with opts over TLS until the test ends, with the
// emulator's own TLS configuration (emulator.TLSConfig), which asks for a client
// certificate when opts.Faults.ClientCACertPEM says so.
func StartTLS(t testing.TB, opts emulator.Options) *Server {
	t.Helper()
	return ServeTLS(t, emulator.New(opts), nil)
}

// ServeTLS serves e over TLS until the test ends: with cfg as the server's TLS
// configuration, or the emulator's own (e.TLSConfig(nil)) when cfg is nil. Failed
// handshakes are not logged: the tests that cause them expect them.
func ServeTLS(t testing.TB, e *emulator.Emulator, cfg *tls.Config) *Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(e)
	if cfg == nil {
		cfg = e.TLSConfig(nil)
	}
	srv.TLS = cfg
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &Server{Emulator: e, URL: srv.URL, HTTP: srv}
}

// AdminURL is the platform's admin_url.
func (s *Server) AdminURL() string { return s.Emulator.AdminURL(s.URL) }

// PlatformURL is the platform's platform_url.
func (s *Server) PlatformURL() string { return s.Emulator.PlatformURL(s.URL) }

// PublishingURL is the publishing service's address (publishing_url).
func (s *Server) PublishingURL() string { return s.Emulator.PublishingURL(s.URL) }

// RegistryURL is the service registry's address.
func (s *Server) RegistryURL() string { return s.Emulator.RegistryURL(s.URL) }

// Client is an HTTP client for the server, trusting its certificate over TLS.
func (s *Server) Client() *http.Client { return s.HTTP.Client() }

// CertPEM is the server's certificate as PEM, for a client's CA setting; "" over
// plain HTTP.
func (s *Server) CertPEM() string {
	cert := s.HTTP.Certificate()
	if cert == nil {
		return ""
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
}

// Close stops the server before the test ends (it is stopped at the end anyway).
func (s *Server) Close() { s.HTTP.Close() }

// ExpectLoggedOut fails the test if, when it ends, the emulator holds a live
// administrator session or access token. Cleanups run last-in first-out: call it
// right after Start, before the test makes its clients, so that it runs after they
// have closed.
func (s *Server) ExpectLoggedOut(t testing.TB) {
	t.Helper()
	t.Cleanup(func() {
		if st := s.Emulator.Stats(); st.LiveSessions != 0 || st.LiveTokens != 0 {
			t.Errorf("at the end of the test: %d live administrator sessions and %d live access tokens, want none",
				st.LiveSessions, st.LiveTokens)
		}
	})
}
