package client

// The data model types.

import (
	"encoding/json"
	"testing"
)

func TestLayoutItemCommon(t *testing.T) {
	t.Parallel()
	var items []LayoutItem
	err := json.Unmarshal([]byte(`[{"id":"a","common":true,"options":{"readOnlyExpressionRule":{"and":[{"attribute":"x","op":"isSet"}]}}},
	  {"id":"b","common":null},{"id":"c","subitems":[{"id":"d","common":true}]}]`), &items)
	if err != nil {
		t.Fatal(err)
	}
	if !items[0].Common || items[1].Common || items[2].Common || !items[2].Subitems[0].Common {
		t.Errorf("common flags: %+v", items)
	}
	if string(items[0].Options["readOnlyExpressionRule"]) != `{"and":[{"attribute":"x","op":"isSet"}]}` {
		t.Errorf("options: %s", items[0].Options["readOnlyExpressionRule"])
	}
}
