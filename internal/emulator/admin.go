package emulator

// Section A of the contract: the administrator API under admin_url.

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxServerSets is the number of numbered server sets the emulator accepts (0–7).
const maxServerSets = 8

type session struct {
	user     *User
	lastUsed time.Time
	// dead is set by logout and by Expire.
	dead bool
}

// serverSet is one numbered entry of the external authentication settings.
type serverSet struct {
	Server  string
	Port    *string
	Enabled bool
}

type adminState struct {
	mu   sync.Mutex
	idle time.Duration
	// clock is the time source of session expiry (nil: time.Now). Tests substitute
	// a fake clock before the first request; reset keeps it.
	clock    func() time.Time
	sessions map[string]*session
	domain   string
	enabled  bool
	servers  []serverSet
	// extra are the settings' members that the contract does not name, served only
	// under the reading settingsExtraFields.
	extra map[string]json.RawMessage
	// configured is set by the first PUT since start or reset; before it, GET answers
	// 404 under the reading unconfiguredSettings.
	configured bool
}

// initialExtraSettings are the members beyond the contract's that a platform of the
// reading settingsExtraFields starts with.
func initialExtraSettings() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"searchBase":            json.RawMessage(`"dc=corp,dc=example"`),
		"connectTimeoutSeconds": json.RawMessage(`30`),
	}
}

// now is the admin API's current time.
func (a *adminState) now() time.Time {
	if a.clock != nil {
		return a.clock()
	}
	return time.Now()
}

func (a *adminState) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions = map[string]*session{}
	a.domain = ""
	a.enabled = false
	a.servers = nil
	a.extra = initialExtraSettings()
	a.configured = false
}

func (a *adminState) alive(s *session, now time.Time) bool {
	return !s.dead && now.Sub(s.lastUsed) < a.idle
}

// live counts the sessions that are neither logged out nor expired.
func (a *adminState) live() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, now := 0, a.now()
	for _, s := range a.sessions {
		if a.alive(s, now) {
			n++
		}
	}
	return n
}

func (a *adminState) expireAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.sessions {
		s.dead = true
	}
}

// newToken returns a random opaque token.
func newToken(prefix string) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func (e *Emulator) findUser(name string) *User {
	for i := range e.opts.Users {
		if e.opts.Users[i].Name == name {
			return &e.opts.Users[i]
		}
	}
	return nil
}

func (e *Emulator) routeAdmin() {
	e.admin.idle = e.opts.SessionIdle
	e.handle("POST "+AdminPath+"/login", e.handleAdminLogin)
	e.handle("GET "+AdminPath+"/checksession", e.withSession(e.handleCheckSession))
	e.handle("GET "+AdminPath+"/logout", e.withSession(e.handleLogout))
	e.handle("GET "+AdminPath+"/externalauth", e.withSession(e.handleGetExternalAuth))
	e.handle("PUT "+AdminPath+"/externalauth", e.withSession(e.handlePutExternalAuth))
}

func (e *Emulator) handleAdminLogin(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		badArgument(w, "admin", "body", "the body is not a valid form: "+err.Error())
		return
	}
	for _, field := range []string{"user", "pass", "r"} {
		if r.PostForm.Get(field) == "" {
			badArgument(w, "admin", field, fmt.Sprintf("the form field %q is required", field))
			return
		}
	}
	if r.PostForm.Get("r") != "createsession" {
		badArgument(w, "admin", "r", `the form field "r" must be "createsession"`)
		return
	}
	u := e.findUser(r.PostForm.Get("user"))
	if u == nil || !u.AdminLogin || subtle.ConstantTimeCompare([]byte(u.Password), []byte(r.PostForm.Get("pass"))) != 1 {
		e.refuseLogin(w, http.StatusUnauthorized, "INVALID_CREDENTIALS", "unknown user or wrong password", func() {
			writeProblem(w, http.StatusUnauthorized, "admin", "INVALID_CREDENTIALS", "unknown user or wrong password", nil)
		})
		return
	}
	token := newToken("as-")
	e.admin.mu.Lock()
	e.admin.sessions[token] = &session{user: u, lastUsed: e.admin.now()}
	e.admin.mu.Unlock()
	e.stats.login(true)
	switch readings := e.readings(); {
	case readings.SessionTokenMember: // Okta's Authentication API: the token as sessionToken
		e.admin.mu.Lock()
		expiresAt := e.admin.now().Add(e.admin.idle)
		e.admin.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{
			"status": "SUCCESS", "sessionToken": token, "expiresAt": formatTime(expiresAt),
			"_embedded": map[string]any{"user": map[string]any{"profile": map[string]any{"login": u.Name}}},
		})
	case readings.LoginTokenHeader: // the token in the header the later calls carry it in
		w.Header().Set("token", token)
		w.WriteHeader(http.StatusOK)
	case readings.BareLoginToken: // contract §V5: "Response: A session token"
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, token)
	case readings.JSONStringLoginToken:
		writeJSON(w, http.StatusOK, token)
	default:
		e.adminJSON(w, map[string]any{"token": token, "user": u.Name})
	}
}

// withSession authenticates the `token` header, renews the session's idle timer and
// calls next with the session's user.
func (e *Emulator) withSession(next func(http.ResponseWriter, *http.Request, string, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token := r.Header.Get("token")
		now := e.admin.now()
		e.admin.mu.Lock()
		s, ok := e.admin.sessions[token]
		if ok && e.admin.alive(s, now) {
			s.lastUsed = now
		} else {
			ok = false
		}
		e.admin.mu.Unlock()
		if !ok && e.readings().LoginRedirects {
			// A form login's answer to a call without a live session: its login page.
			w.Header().Set("Location", baseURL(r)+AdminPath+"/login")
			w.WriteHeader(http.StatusFound)
			return
		}
		if !ok {
			status := http.StatusUnauthorized
			code := "UNAUTHORIZED"
			if e.readings().ForbiddenWhenExpired {
				status, code = http.StatusForbidden, "FORBIDDEN"
			}
			writeProblem(w, status, "admin", code, "missing, unknown, expired or invalidated session token", nil)
			return
		}
		next(w, r, token, s)
	}
}

func (e *Emulator) handleCheckSession(w http.ResponseWriter, _ *http.Request, _ string, s *session) {
	e.admin.mu.Lock()
	expiresAt := s.lastUsed.Add(e.admin.idle)
	e.admin.mu.Unlock()
	e.adminJSON(w, map[string]any{"valid": true, "user": s.user.Name, "expiresAt": formatTime(expiresAt)})
}

func (e *Emulator) handleLogout(w http.ResponseWriter, _ *http.Request, _ string, s *session) {
	e.admin.mu.Lock()
	s.dead = true
	e.admin.mu.Unlock()
	e.adminJSON(w, map[string]any{"loggedOut": true})
}

func forbiddenSettings(w http.ResponseWriter, s *session) bool {
	if s.user.Administrator {
		return false
	}
	writeProblem(w, http.StatusForbidden, "admin", "FORBIDDEN",
		fmt.Sprintf("user %q is not an administrator", s.user.Name), map[string]any{"user": s.user.Name})
	return true
}

func (e *Emulator) handleGetExternalAuth(w http.ResponseWriter, _ *http.Request, _ string, s *session) {
	if forbiddenSettings(w, s) {
		return
	}
	e.admin.mu.Lock()
	configured := e.admin.configured
	e.admin.mu.Unlock()
	if !configured && e.readings().UnconfiguredSettings {
		// A singleton that exists once it is first set, as GitHub's branch protection.
		writeProblem(w, http.StatusNotFound, "admin", "NOT_FOUND", "external authentication is not configured", nil)
		return
	}
	e.adminJSON(w, e.settingsDocument())
}

// adminJSON writes a 200 answer of the administrator API; under the reading
// omitEmptyAdminMembers without its members whose value is false, zero or empty.
func (e *Emulator) adminJSON(w http.ResponseWriter, doc map[string]any) {
	if e.readings().OmitEmptyAdminMembers {
		for k, v := range doc {
			switch v := v.(type) {
			case nil:
				delete(doc, k)
			case bool:
				if !v {
					delete(doc, k)
				}
			case string:
				if v == "" {
					delete(doc, k)
				}
			case json.RawMessage:
				switch string(bytes.TrimSpace(v)) {
				case "null", "false", "0", `""`:
					delete(doc, k)
				}
			}
		}
	}
	if e.readings().OmitDefaultAdminMembers {
		// Jackson's NON_DEFAULT against contract §A's defaults: enabledN is true and the
		// switch false unless written.
		for k, v := range doc {
			if b, ok := v.(bool); ok && (b && numberedField.MatchString(k) || !b && k == "externalAuthenticationEnabled") {
				delete(doc, k)
			}
		}
	}
	if e.readings().UnreportedSwitch {
		delete(doc, "externalAuthenticationEnabled")
	}
	if e.readings().StringAdminBooleans {
		for k, v := range doc {
			if b, ok := v.(bool); ok {
				doc[k] = strconv.FormatBool(b)
			}
		}
	}
	writeJSON(w, http.StatusOK, doc)
}

// settingsDocument renders the stored settings: the two required fields and exactly
// the stored server sets (under allServerSlots every slot, the unused ones empty;
// under settingsExtraFields the members beyond the contract's too).
func (e *Emulator) settingsDocument() map[string]any {
	readings := e.readings()
	e.admin.mu.Lock()
	defer e.admin.mu.Unlock()
	doc := map[string]any{"domainName": e.admin.domain, "externalAuthenticationEnabled": e.admin.enabled}
	if readings.CanonicalSettings {
		doc["domainName"] = strings.ToUpper(e.admin.domain)
	}
	if readings.SettingsExtraFields {
		for k, v := range e.admin.extra {
			doc[k] = v
		}
	}
	for i, set := range e.admin.servers {
		n := strconv.Itoa(i)
		doc["server"+n] = set.Server
		if readings.CanonicalSettings {
			doc["server"+n] = canonicalHost(set.Server)
		}
		if set.Port != nil {
			doc["port"+n] = *set.Port
		}
		doc["enabled"+n] = set.Enabled
	}
	if readings.AllServerSlots {
		for i := len(e.admin.servers); i < maxServerSets; i++ {
			n := strconv.Itoa(i)
			doc["server"+n], doc["port"+n], doc["enabled"+n] = "", "", false
		}
	}
	return doc
}

func (e *Emulator) handlePutExternalAuth(w http.ResponseWriter, r *http.Request, _ string, s *session) {
	if forbiddenSettings(w, s) {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		badArgument(w, "admin", "body", "the body could not be read")
		return
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil || doc == nil {
		badArgument(w, "admin", "body", "the body must be a JSON object")
		return
	}
	readings := e.readings()
	if readings.AllServerSlots {
		// A platform that lists empty slots takes them back as empty.
		for n := range maxServerSets {
			num := strconv.Itoa(n)
			if raw, ok := doc["server"+num]; ok && string(bytes.TrimSpace(raw)) == `""` {
				delete(doc, "server"+num)
				delete(doc, "port"+num)
				delete(doc, "enabled"+num)
			}
		}
	}
	domain, enabled, field, msg := parseSettings(doc)
	if field != "" {
		badArgument(w, "admin", field, msg)
		return
	}
	servers, field, msg := parseServerSets(doc)
	if field != "" {
		badArgument(w, "admin", field, msg)
		return
	}
	e.admin.mu.Lock()
	e.admin.domain, e.admin.enabled, e.admin.servers = domain, enabled, servers
	e.admin.configured = true
	if readings.SettingsExtraFields {
		// The whole document is replaced: the members beyond the contract's too.
		e.admin.extra = map[string]json.RawMessage{}
		for k, v := range doc {
			if k != "domainName" && k != "externalAuthenticationEnabled" && !numberedField.MatchString(k) {
				e.admin.extra[k] = v
			}
		}
	}
	e.admin.mu.Unlock()
	if readings.EmptySettingsAnswer {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	e.adminJSON(w, e.settingsDocument())
}

// parseSettings checks the two required fields; on failure it returns the field and
// a message.
func parseSettings(doc map[string]json.RawMessage) (domain string, enabled bool, field, msg string) {
	raw, ok := doc["domainName"]
	if !ok || json.Unmarshal(raw, &domain) != nil || domain == "" {
		return "", false, "domainName", "domainName is required and must be a non-empty string"
	}
	raw, ok = doc["externalAuthenticationEnabled"]
	if !ok || isNull(raw) || json.Unmarshal(raw, &enabled) != nil {
		return "", false, "externalAuthenticationEnabled", "externalAuthenticationEnabled is required and must be a boolean"
	}
	return domain, enabled, "", ""
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// numberedField matches the fields of a server set; the number has no leading zero.
// Other spellings (server01) are unknown fields and ignored like any other.
var numberedField = regexp.MustCompile(`^(server|port|enabled)(0|[1-9][0-9]*)$`)

// parseServerSets reads serverN/portN/enabledN. Set N is sent when serverN is
// (a JSON null counts as not sent). Sets are numbered from 0 without gaps, at most
// maxServerSets; portN or enabledN without serverN, set N without set N−1, and any
// N ≥ maxServerSets are rejected with params.field = serverN. Checks run in order of
// N, so the field reported is deterministic.
func parseServerSets(doc map[string]json.RawMessage) (sets []serverSet, field, msg string) {
	sent := func(key string) bool {
		raw, ok := doc[key]
		return ok && !isNull(raw)
	}
	// The lowest set number out of range, compared as digit strings (no leading
	// zeros, so shorter is smaller) to cope with numbers too large for an int.
	tooHigh := ""
	for key := range doc {
		m := numberedField.FindStringSubmatch(key)
		if m == nil || !sent(key) {
			continue
		}
		if n, err := strconv.Atoi(m[2]); err == nil && n < maxServerSets {
			continue
		}
		if tooHigh == "" || len(m[2]) < len(tooHigh) || len(m[2]) == len(tooHigh) && m[2] < tooHigh {
			tooHigh = m[2]
		}
	}
	if tooHigh != "" {
		return nil, "server" + tooHigh, fmt.Sprintf("at most %d server sets (0 to %d) are accepted", maxServerSets, maxServerSets-1)
	}
	for n := range maxServerSets {
		num := strconv.Itoa(n)
		if !sent("server" + num) {
			if sent("port"+num) || sent("enabled"+num) {
				return nil, "server" + num, fmt.Sprintf("port%s or enabled%s is sent without server%s", num, num, num)
			}
			continue
		}
		if n > 0 && !sent("server"+strconv.Itoa(n-1)) {
			return nil, "server" + num, fmt.Sprintf("server set %d is sent without server set %d: sets are numbered from 0 without gaps", n, n-1)
		}
		var set serverSet
		if json.Unmarshal(doc["server"+num], &set.Server) != nil || !validHost(set.Server) {
			return nil, "server" + num, "server" + num + " must be a host name or an IP address"
		}
		if sent("port" + num) {
			var port string
			if json.Unmarshal(doc["port"+num], &port) != nil || !validPort(port) {
				return nil, "port" + num, "port" + num + " must be a string holding a decimal port from 1 to 65535"
			}
			set.Port = &port
		}
		set.Enabled = true
		if sent("enabled" + num) {
			if json.Unmarshal(doc["enabled"+num], &set.Enabled) != nil {
				return nil, "enabled" + num, "enabled" + num + " must be a boolean"
			}
		}
		sets = append(sets, set)
	}
	return sets, "", ""
}

// validPort accepts the canonical decimal spelling of 1 to 65535 ("389", not "0389"
// or "+389"), so that the stored string reads back as the number it holds.
func validPort(port string) bool {
	p, err := strconv.Atoi(port)
	return err == nil && p >= 1 && p <= 65535 && strconv.Itoa(p) == port
}

// ExternalAuthenticationEnabled reports whether the stored settings switch external
// authentication on, whatever the readings let the answers show: for the tests that
// check what a client wrote to a platform that does not report it.
func (e *Emulator) ExternalAuthenticationEnabled() bool {
	e.admin.mu.Lock()
	defer e.admin.mu.Unlock()
	return e.admin.enabled
}

// canonicalHost is a server address as a platform that canonicalises it stores it: a
// host name in lower case (RFC 4343), an IP address in RFC 5952 form.
func canonicalHost(h string) string {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.String()
	}
	return strings.ToLower(h)
}

// validHost accepts what the contract calls a server address: an IPv4 or IPv6
// address (without a zone), or a host name of RFC 1123 labels (letters, digits and
// hyphens, 1–63 characters, not starting or ending with a hyphen) with dots between
// them, 253 characters at most. No scheme, port, path or space, and no brackets: they
// are URI syntax around an IPv6 address (RFC 3986 §3.2.2), not part of it.
func validHost(h string) bool {
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Zone() == ""
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if !hostLabel.MatchString(label) {
			return false
		}
	}
	return true
}

var hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)
