package provider

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestDataSourceStringParams(t *testing.T) {
	t.Parallel()
	var params map[string]any
	if err := json.Unmarshal([]byte(`{"s": "two words", "n": 2, "f": 1.5, "b": true, "z": null, "o": {"k": ["v"]}}`), &params); err != nil {
		t.Fatal(err)
	}
	got := stringParams(params)
	want := map[string]string{"s": "two words", "n": "2", "f": "1.5", "b": "true", "z": "null", "o": `{"k":["v"]}`}
	if !maps.Equal(got, want) {
		t.Errorf("stringParams = %v, want %v", got, want)
	}
	if stringParams(nil) != nil {
		t.Error("stringParams(nil) is not nil")
	}
}

// TestNormalizeJSON: every JSON text the provider shows is compact, with object keys
// sorted, numbers as written and <, > and & as they are; absent or null JSON is null.
func TestNormalizeJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want types.String
	}{
		{``, types.StringNull()},
		{`null`, types.StringNull()},
		{`{}`, types.StringValue(`{}`)},
		{` {"b": [1, 2.50, 12345678901234567890], "a": {"y": "<&>", "x": null}} `,
			types.StringValue(`{"a":{"x":null,"y":"<&>"},"b":[1,2.50,12345678901234567890]}`)},
		{`{"op": "isSet", "attribute": "genre"}`, types.StringValue(`{"attribute":"genre","op":"isSet"}`)},
		{" {\n \"or\": [ {\"value\": null, \"op\": \"equals\", \"attribute\": \"a<b>&\"} ] }\n",
			types.StringValue(`{"or":[{"attribute":"a<b>&","op":"equals","value":null}]}`)},
		{`{"n": 1.50, "big": 12345678901234567890, "e": 1e3}`, types.StringValue(`{"big":12345678901234567890,"e":1e3,"n":1.50}`)},
		{`"text"`, types.StringValue(`"text"`)},
		{`{"nested": {"z": [3, 2, {"b": true, "a": false}], "a": {}}}`,
			types.StringValue(`{"nested":{"a":{},"z":[3,2,{"a":false,"b":true}]}}`)},
	} {
		got, err := normalizeJSON([]byte(tc.in))
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("normalizeJSON(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := normalizeJSON([]byte(`{"a":`)); err == nil {
		t.Error("normalizeJSON accepted broken JSON")
	}
}
