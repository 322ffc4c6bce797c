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
	"sort"
	"strconv"
)

// ExternalAuthentication is the administrator API's external authentication
// settings document.
type ExternalAuthentication struct {
	// DomainName is the domain of external authentication (domainName).
	DomainName string
	// Enabled switches external authentication on or off
	// (externalAuthenticationEnabled).
	Enabled bool
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
	// Enabled switches the entry on or off (enabledN; always written, and read as
	// false when the platform leaves it out).
	Enabled bool
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
	return parseExternalAuthentication(resp.body)
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
	if len(bytes.TrimSpace(resp.body)) == 0 {
		// The response bodies of the administrator API are not shown: a platform may
		// store the settings and answer nothing (204). Read back what it stored.
		return c.GetExternalAuthentication(ctx)
	}
	return parseExternalAuthentication(resp.body)
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
	s.Enabled = zeroOrBool(doc, "externalAuthenticationEnabled")
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
		if n, err := strconv.Atoi(m[2]); err == nil && m[1] == "server" {
			numbers = append(numbers, n)
		}
	}
	sort.Ints(numbers)
	for _, n := range numbers {
		idx := strconv.Itoa(n)
		var srv AuthServer
		if err := zeroOrString(doc, "server"+idx, &srv.Address); err != nil {
			return nil, err
		}
		if srv.Address == "" {
			continue // an empty slot
		}
		if v, ok := doc["port"+idx]; ok {
			// A decimal string on the wire, or a number; in any integer form (flexInt).
			var port flexInt
			_ = port.UnmarshalJSON(v)
			srv.Port = int(port)
		}
		srv.Enabled = zeroOrBool(doc, "enabled"+idx)
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

// zeroOrBool reads the boolean member k of doc: true or false, or a string holding
// one in any case (rule 22); absent, null, "" or any other value is false (rule 1),
// never an unreadable document.
func zeroOrBool(doc map[string]json.RawMessage, k string) bool {
	return booleanValue(doc[k])
}
