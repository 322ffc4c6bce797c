package emulatortest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestStart: the four base addresses answer on a plain server, the default
// administrator logs in, and ExpectLoggedOut passes once the session is closed.
func TestStart(t *testing.T) {
	t.Parallel()
	s := Start(t, emulator.Options{})
	s.ExpectLoggedOut(t)
	if !strings.HasPrefix(s.URL, "http://") || s.CertPEM() != "" {
		t.Errorf("URL %q, CertPEM %q: want plain HTTP", s.URL, s.CertPEM())
	}
	for _, u := range []string{s.PlatformURL() + "/auth", s.RegistryURL(), s.PublishingURL() + "/scores"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusNotFound {
			t.Errorf("GET %s: 404, want the route to exist", u)
		}
	}
	token := login(t, s.Client(), s.AdminURL())
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.AdminURL()+"/logout", nil)
	req.Header.Set("token", token)
	if res, err := s.Client().Do(req); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	if n := s.Emulator.Stats().LiveSessions; n != 0 {
		t.Errorf("%d live sessions after the logout", n)
	}
}

// TestStartTLS: the server's certificate as PEM is enough to trust it.
func TestStartTLS(t *testing.T) {
	t.Parallel()
	s := StartTLS(t, emulator.Options{})
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(s.CertPEM())) {
		t.Fatalf("CertPEM %q is no certificate", s.CertPEM())
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	defer c.CloseIdleConnections()
	login(t, c, s.AdminURL())
	login(t, s.Client(), s.AdminURL())
}

// TestAccounts: the harness's accounts are the emulator's defaults.
func TestAccounts(t *testing.T) {
	t.Parallel()
	users, clients := emulator.DefaultUsers(), emulator.DefaultClients()
	for _, u := range [][2]string{{AdminUsername, AdminPassword}, {Username, Password}, {ViewerUsername, ViewerPassword}} {
		found := false
		for _, d := range users {
			found = found || (d.Name == u[0] && d.Password == u[1])
		}
		if !found {
			t.Errorf("account %s is not a default user", u[0])
		}
	}
	if len(clients) != 1 || clients[0].ID != ClientID || clients[0].Secret != ClientSecret {
		t.Errorf("default clients %+v, want %s", clients, ClientID)
	}
}

func login(t *testing.T, c *http.Client, adminURL string) string {
	t.Helper()
	form := url.Values{"user": {AdminUsername}, "pass": {AdminPassword}, "r": {"createsession"}}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, adminURL+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Token string }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK || body.Token == "" {
		t.Fatalf("login: %s, %+v %v", res.Status, body, err)
	}
	return body.Token
}
