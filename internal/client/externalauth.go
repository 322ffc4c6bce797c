package client

// The external authentication settings of the administrator API (GET and PUT
// /externalauthentication): the servers, ports and switches the specification names,
// read in every form the reading table allows, and written back with every member
// the client does not model kept as it was read.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ExternalAuthentication is the administrator API's external authentication
// settings document.
type ExternalAuthentication struct {
	// DomainName is the domain of external authentication (domainName).
	DomainName string
	// Enabled switches external authentication on or off
	// (externalAuthenticationEnabled).
	Enabled bool
	// Unshown names the members the answer left out whose value it did not show:
	// "domainName" (then ""), "serverN" for a set given without its address (then ""), "externalAuthenticationEnabled" (Enabled is then false, as
	// on the platforms that leave false out), and "portN" (then 0) and "enabledN" (see
	// AuthServer.Enabled) for Servers[N]. A PUT's answer shows what was sent. A reader that must not conclude from a value the
	// platform did not give (a destroy that would otherwise write nothing, a refresh
	// on a platform that never reports a member) asks Shown. Nil when all were shown.
	Unshown []string
	// Servers are the numbered server sets serverN/portN/enabledN, in order.
	Servers []AuthServer
	// Raw is the document as the API returned it (ignored when writing).
	Raw json.RawMessage
	// Extra are the members of the document that this client does not model (any
	// but domainName, externalAuthenticationEnabled and the numbered serverN, portN,
	// enabledN), as the API returned them. A PUT replaces the whole document, so they
	// are written back as they are: send the Extra of a fresh read to keep what
	// another client set. Nil when there are none.
	Extra map[string]json.RawMessage
}

// AuthServer is one external authentication server.
type AuthServer struct {
	// Address is the host name or IP address (serverN).
	Address string
	// Port is the TCP port (portN, a decimal string on the wire).
	Port int
	// Enabled switches the entry on or off (enabledN; always written). An enabledN the
	// answer leaves out is read by what the platform has shown of its enabledN members
	// (settingsPresence): true (contract §A's default) on a platform that writes false
	// ones, false on one that writes true ones and so leaves out false, else the
	// contract's default, named in ExternalAuthentication.Unshown.
	Enabled bool
}

// Shown reports whether the answer gave the switch member (externalAuthenticationEnabled
// or enabledN) a value, or its absence has one meaning on this platform.
func (s *ExternalAuthentication) Shown(member string) bool {
	return !slices.Contains(s.Unshown, member)
}

// shown marks member as shown.
func (s *ExternalAuthentication) shown(member string) {
	s.Unshown = slices.DeleteFunc(s.Unshown, func(m string) bool { return m == member })
	if len(s.Unshown) == 0 {
		s.Unshown = nil
	}
}

// GetExternalAuthentication reads the external authentication settings.
func (c *Client) GetExternalAuthentication(ctx context.Context) (*ExternalAuthentication, error) {
	base, err := c.adminBase()
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/externalauth", auth: authAdmin}, nil)
	if err != nil {
		return nil, c.addressError("admin_url", base, "/externalauth", err)
	}
	return c.presence.read(parseExternalAuthentication(resp.body))
}

// PutExternalAuthentication replaces the external authentication settings
// with s (server sets not given are removed) and returns the stored settings.
func (c *Client) PutExternalAuthentication(ctx context.Context, s ExternalAuthentication) (*ExternalAuthentication, error) {
	base, err := c.adminBase()
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, &request{method: http.MethodPut, url: base + "/externalauth", auth: authAdmin, body: s.document()}, nil)
	if err != nil {
		return nil, c.addressError("admin_url", base, "/externalauth", err)
	}
	var stored *ExternalAuthentication
	if len(bytes.TrimSpace(resp.body)) == 0 {
		// The response bodies of the administrator API are not shown: a platform may
		// store the settings and answer nothing (204). Read back what it stored, and
		// read that as the answer to this write: its gaps are what was sent too.
		stored, err = c.GetExternalAuthentication(ctx)
	} else {
		stored, err = parseExternalAuthentication(resp.body)
	}
	if err != nil {
		return nil, err
	}
	c.presence.learn(s, stored)
	return c.presence.read(stored, nil)
}

// document returns the wire form with numbered server sets, and the members the
// client does not model as they were read.
func (s ExternalAuthentication) document() map[string]any {
	doc := map[string]any{}
	for k, v := range s.Extra {
		if !modelledSettingsMember(k) {
			doc[k] = v
		}
	}
	doc["domainName"] = s.DomainName
	doc["externalAuthenticationEnabled"] = s.Enabled
	for i, srv := range s.Servers {
		n := strconv.Itoa(i)
		doc["server"+n] = srv.Address
		doc["port"+n] = strconv.Itoa(srv.Port)
		doc["enabled"+n] = srv.Enabled
	}
	return doc
}

// numberedMember matches the members of a server set; the number has no leading
// zero (a platform's "server01" is a member the client does not model).
var numberedMember = regexp.MustCompile(`^(server|port|enabled)(0|[1-9][0-9]*)$`)

// modelledSettingsMember reports whether the client reads and writes the member k of
// the settings document itself.
func modelledSettingsMember(k string) bool {
	return k == "domainName" || k == "externalAuthenticationEnabled" || numberedMember.MatchString(k)
}

// parseExternalAuthentication reads the settings document. A member that is absent,
// null or empty ("") holds its type's zero value, as the platforms that leave out
// default values (omitempty, protojson) or list every slot write them: an absent
// enabledN is false, and a set whose serverN is empty is no server, wherever it stands.
// A boolean may come as a string ("true", rule 22), as the ports do.
// Server sets are collected by number, so a document with gaps still yields every
// server.
func parseExternalAuthentication(body []byte) (*ExternalAuthentication, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decoding external authentication settings: %w", err)
	}
	s := &ExternalAuthentication{Raw: json.RawMessage(body)}
	if err := zeroOrString(doc, "domainName", &s.DomainName); err != nil {
		return nil, err
	}
	if v, ok := doc["domainName"]; !ok || string(bytes.TrimSpace(v)) == "null" {
		s.Unshown = append(s.Unshown, "domainName") // "" is shown: the settings before the first PUT
	}
	var shown bool
	if s.Enabled, shown = shownBool(doc, "externalAuthenticationEnabled"); !shown {
		s.Unshown = append(s.Unshown, "externalAuthenticationEnabled")
	}
	var numbers []int
	for k, v := range doc {
		m := numberedMember.FindStringSubmatch(k)
		if m == nil {
			if !modelledSettingsMember(k) {
				if s.Extra == nil {
					s.Extra = map[string]json.RawMessage{}
				}
				s.Extra[k] = v
			}
			continue
		}
		if n, err := strconv.Atoi(m[2]); err == nil && !slices.Contains(numbers, n) {
			numbers = append(numbers, n)
		}
	}
	sort.Ints(numbers)
	for _, n := range numbers {
		idx := strconv.Itoa(n)
		var srv AuthServer
		if _, reported := doc["server"+idx]; !reported {
			// A set whose port or switch is given but not its server: the answer does
			// not report the address (unknown, not "no server").
			s.Unshown = append(s.Unshown, "server"+strconv.Itoa(len(s.Servers)))
		} else if err := zeroOrString(doc, "server"+idx, &srv.Address); err != nil {
			return nil, err
		} else if srv.Address == "" {
			continue // an empty slot
		}
		if v, ok := doc["port"+idx]; ok {
			// A decimal string on the wire, or a number; in any integer form (flexInt).
			var port flexInt
			_ = port.UnmarshalJSON(v)
			srv.Port = int(port)
		}
		if srv.Port < 1 || srv.Port > 65535 {
			s.Unshown = append(s.Unshown, "port"+strconv.Itoa(len(s.Servers)))
		}
		if srv.Enabled, shown = shownBool(doc, "enabled"+idx); !shown {
			s.Unshown = append(s.Unshown, "enabled"+strconv.Itoa(len(s.Servers)))
		}
		s.Servers = append(s.Servers, srv)
	}
	return s, nil
}

// zeroMember reports whether a member's value is null or the empty string, both of
// which stand for the zero value of the member's type.
func zeroMember(v json.RawMessage) bool {
	t := string(bytes.TrimSpace(v))
	return t == "null" || t == `""`
}

// zeroOrString reads the string member k of doc into dst; absent, null or "" is "".
func zeroOrString(doc map[string]json.RawMessage, k string, dst *string) error {
	if v, ok := doc[k]; ok && !zeroMember(v) {
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("decoding %s: %w", k, err)
		}
	}
	return nil
}

// shownBool reads the boolean member k of doc (booleanValue: true or false, or a
// string holding one in any case, rule 22) and whether the answer gave it: absent,
// null, "" or any other value is not shown, and reads false.
func shownBool(doc map[string]json.RawMessage, k string) (value, shown bool) {
	v, ok := doc[k]
	if !ok || zeroMember(v) {
		return false, false
	}
	var s string
	t := bytes.TrimSpace(v)
	switch {
	case string(t) == "true" || string(t) == "false":
		return string(t) == "true", true
	case len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &s) == nil:
		s = strings.TrimSpace(s)
		return strings.EqualFold(s, "true"), strings.EqualFold(s, "true") || strings.EqualFold(s, "false")
	}
	return false, false
}

// settingsPresence decides what a member the settings' answers leave out means, by
// what the platform has shown (the reading table's rule 1 as issue 60 wrote it). Both
// families are in the field: a platform that leaves out a member whose value is its
// type's zero (omitempty: a disabled server has no enabledN) and one that leaves out
// a member at its default (Jackson's NON_DEFAULT: contract §A's enabledN defaults to
// true), or never reports it. An answer shows its family when it writes some
// enabledN: a false one anywhere in it (externalAuthenticationEnabled too) says that
// falses are written, so an absent enabledN is true; a true enabledN without any false
// says that falses are left out. A PUT's answer shows it against what was sent, and
// the client keeps what it learns for the process. Where nothing shows it, the
// server's EnabledShown stays unset and the caller keeps what it knew.
type settingsPresence struct {
	mu sync.Mutex
	// omitsTrue and omitsFalse are set once a PUT's answer left out an enabledN that was
	// sent true, or false; switchUnreported once it left out externalAuthenticationEnabled
	// sent true (a platform that leaves out false ones cannot have left it out).
	omitsTrue, omitsFalse, switchUnreported bool
}

// learn compares what a PUT sent with the answer it got.
func (p *settingsPresence) learn(sent ExternalAuthentication, stored *ExternalAuthentication) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The platform stored what was sent: its answer's gaps are what was sent, a server
	// it does not report included.
	var doc map[string]json.RawMessage
	_ = json.Unmarshal(stored.Raw, &doc)
	for i := len(stored.Servers); i < len(sent.Servers); i++ {
		if _, reported := doc["server"+strconv.Itoa(i)]; reported {
			break
		}
		stored.Servers = append(stored.Servers, sent.Servers[i])
	}
	for i := range min(len(stored.Servers), len(sent.Servers)) {
		if member := "server" + strconv.Itoa(i); !stored.Shown(member) {
			stored.Servers[i].Address = sent.Servers[i].Address
			stored.shown(member)
		}
	}
	if !stored.Shown("domainName") {
		stored.DomainName = sent.DomainName
		stored.shown("domainName")
	}
	for i := range min(len(stored.Servers), len(sent.Servers)) {
		if member := "port" + strconv.Itoa(i); !stored.Shown(member) && EquivalentHosts(sent.Servers[i].Address, stored.Servers[i].Address) {
			stored.Servers[i].Port = sent.Servers[i].Port
			stored.shown(member)
		}
	}
	if !stored.Shown("externalAuthenticationEnabled") {
		p.switchUnreported = p.switchUnreported || sent.Enabled
		stored.Enabled = sent.Enabled
		stored.shown("externalAuthenticationEnabled")
	}
	for i, srv := range stored.Servers {
		member := "enabled" + strconv.Itoa(i)
		if stored.Shown(member) || i >= len(sent.Servers) || !EquivalentHosts(sent.Servers[i].Address, srv.Address) {
			continue
		}
		if sent.Servers[i].Enabled {
			p.omitsTrue = true
		} else {
			p.omitsFalse = true
		}
		stored.Servers[i].Enabled = sent.Servers[i].Enabled
		stored.shown(member)
	}
}

// read gives each enabledN the answer left out the meaning this platform has shown
// for it, and passes an error on.
func (p *settingsPresence) read(s *ExternalAuthentication, err error) (*ExternalAuthentication, error) {
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	omitsTrue, omitsFalse := p.omitsTrue, p.omitsFalse
	p.mu.Unlock()
	member := func(i int) string { return "enabled" + strconv.Itoa(i) }
	falses := s.Shown("externalAuthenticationEnabled") && !s.Enabled
	trues := false
	for i, srv := range s.Servers {
		falses = falses || s.Shown(member(i)) && !srv.Enabled
		trues = trues || s.Shown(member(i)) && srv.Enabled
	}
	for i := range s.Servers {
		if s.Shown(member(i)) {
			continue
		}
		switch {
		case falses || omitsTrue && !omitsFalse:
			s.Servers[i].Enabled = true
			s.shown(member(i))
		case trues || omitsFalse && !omitsTrue:
			s.Servers[i].Enabled = false
			s.shown(member(i))
		default:
			s.Servers[i].Enabled = true // contract §A's default, unconfirmed: stays in Unshown
		}
	}
	return s, nil
}

// SettingsSwitchUnreported reports whether this platform has shown that it leaves
// externalAuthenticationEnabled out of its answers even when it is true: an answer
// without it then says nothing of the switch.
func (c *Client) SettingsSwitchUnreported() bool {
	c.presence.mu.Lock()
	defer c.presence.mu.Unlock()
	return c.presence.switchUnreported
}
