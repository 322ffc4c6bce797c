package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Conversions shared by resources and data sources.

// optionalString is null for the empty string, which the client uses for "missing".
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// timeValue formats a platform time as RFC 3339 (null when the platform sent none).
func timeValue(t time.Time) types.String {
	if t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339Nano))
}

// normalizeJSON returns JSON text in a stable form: compact, object keys sorted,
// numbers as written, <, > and & as they are. Absent or null JSON gives a null
// string. Every JSON text the provider shows goes through it.
func normalizeJSON(raw json.RawMessage) (types.String, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return types.StringNull(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return types.StringNull(), err
	}
	if v == nil {
		return types.StringNull(), nil
	}
	b, err := marshalJSONText(v)
	if err != nil {
		return types.StringNull(), err
	}
	return types.StringValue(string(b)), nil
}

// marshalJSONText encodes v without escaping <, > and & (the text is for people
// and jsondecode, not for HTML).
func marshalJSONText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// stringParams renders a map of message parameters as strings: a string as it is,
// any other value (number, boolean, null, object, array) as its compact JSON text.
// A nil map gives nil (null).
func stringParams(params map[string]any) map[string]string {
	if params == nil {
		return nil
	}
	out := make(map[string]string, len(params))
	for k, v := range params {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := marshalJSONText(v)
		if err != nil {
			out[k] = fmt.Sprint(v)
			continue
		}
		out[k] = string(b)
	}
	return out
}

// convertAll converts every element; the result is never nil, so that an empty
// collection is an empty list rather than null.
func convertAll[T, M any](in []T, conv func(T) M) []M {
	out := make([]M, 0, len(in))
	for _, v := range in {
		out = append(out, conv(v))
	}
	return out
}

// stringList returns s, or an empty list for nil.
func stringList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// stringMap returns m, or an empty map for nil.
func stringMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// wireAddress is a server address as the platform takes it: an IPv6 address written
// in the brackets of its URI form (RFC 3986 §3.2.2), which the attribute accepts, is
// sent without them, since the brackets are URI syntax and not part of the address
// (contract §A); every other address is sent as written.
func wireAddress(address string) string {
	if inner, ok := strings.CutPrefix(address, "["); ok {
		if inner, ok := strings.CutSuffix(inner, "]"); ok {
			if a, err := netip.ParseAddr(inner); err == nil && a.Is6() {
				return inner
			}
		}
	}
	return address
}

// sameAddress reports whether two server addresses name the same server: by the
// class of the attribute (hostClass), the same IP address in any spelling
// ("[fd00::10]", "fd00::10", "FD00:0::10") or the same host name without case.
func sameAddress(a, b string) bool { return hostClass.equal(a, b) }
