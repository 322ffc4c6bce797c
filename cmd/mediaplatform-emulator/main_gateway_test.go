package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// TestRunGateway serves behind the gateway of -client-ca and -require-header: the
// handshake wants the client certificate, and the platform the access header.
func TestRunGateway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := testca.New(t, "gateway test CA")
	caPEM, clientCert := []byte(ca.PEM), ca.ClientCertificate(t, "terraform")
	clientCAFile, serverCAFile := filepath.Join(dir, "client-ca.pem"), filepath.Join(dir, "server-ca.pem")
	if err := os.WriteFile(clientCAFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-tls", "-ca-cert-file", serverCAFile, "-client-ca", clientCAFile,
			"-require-header", "X-Access-Token=gw-secret", "-render-delay", "0"}, w, io.Discard)
		w.Close()
	}()
	out := bufio.NewReader(r)
	a := parseAddresses(t, readFirstLine(t, out), "https")
	banner := make(chan string, 1)
	go func() { b, _ := io.ReadAll(out); banner <- string(b) }()

	serverCA, err := os.ReadFile(serverCAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(serverCA)
	get := func(cert *tls.Certificate, header string) (status int, contentType, body string, err error) {
		tlsConfig := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
		if cert != nil {
			tlsConfig.Certificates = []tls.Certificate{*cert}
		}
		tr := &http.Transport{TLSClientConfig: tlsConfig}
		defer tr.CloseIdleConnections()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, a.PlatformURL+"/auth", nil)
		if header != "" {
			req.Header.Set("X-Access-Token", header)
		}
		res, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			return 0, "", "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(b), err
	}

	// Refused: no client certificate (the handshake), then no access header (the gateway's page).
	if status, _, _, err := get(nil, "gw-secret"); err == nil || !strings.Contains(err.Error(), "certificate required") {
		t.Errorf("without a client certificate: status %d, error %v; want the handshake refused", status, err)
	}
	status, contentType, body, err := get(&clientCert, "")
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusUnauthorized || contentType != "text/html; charset=utf-8" ||
		!strings.Contains(body, "<title>401 Authorization Required</title>") {
		t.Errorf("without the access header: %d %s\n%s", status, contentType, body)
	}
	// Accepted: both.
	status, _, body, err = get(&clientCert, "gw-secret")
	if err != nil {
		t.Fatal(err)
	}
	var auth map[string]any
	if status != http.StatusOK || json.Unmarshal([]byte(body), &auth) != nil {
		t.Errorf("with the certificate and the header: %d\n%s", status, body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after the context ended")
	}
	b := <-banner
	for _, want := range []string{"requires the access header X-Access-Token", "requires a client certificate signed by a CA of " + clientCAFile} {
		if !strings.Contains(b, want) {
			t.Errorf("the banner lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, "gw-secret") {
		t.Errorf("the banner shows the access header's value:\n%s", b)
	}
}

// TestRunClientCAFileErrors: a -client-ca file that is not PEM certificates stops the
// program before it serves.
func TestRunClientCAFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte{1}}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{notPEM, keyFile, filepath.Join(dir, "missing.pem")} {
		err := run(t.Context(), []string{"-listen", "127.0.0.1:0", "-tls", "-client-ca", file}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-client-ca") || errors.As(err, new(usageError)) {
			t.Errorf("-client-ca %s: %v, want an error naming -client-ca", file, err)
		}
	}
}
