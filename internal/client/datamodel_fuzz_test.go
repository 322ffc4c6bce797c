package client

// The fuzz target of datamodel.go: a system's or an asset's data model, read as
// SystemModel and the asset model calls read it.

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzModelAnswer fuzzes a data model, read both as a system's and as an asset's. A
// model read can be written as JSON (the data sources store its layouts), and no
// model takes a second to read, however deep its attributes nest.
func FuzzModelAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindModel) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Add([]byte(`{"layouts": [{"items": [{"common": null}, {"common": "yes"}, null]}], "attributes": [{"type": 7}]}`))
	// The fuzzer's find: attributes nested 4,990 deep (145 KB) took 6.3 s to decode, each
	// level's UnmarshalJSON reading its whole subtree again.
	f.Add([]byte(`{"attributes": {"common": [` + strings.Repeat(`{"id":"a","subattributes":[`, 4990) +
		strings.Repeat(`]}`, 4990) + `]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var sys SystemModel
		var asset AssetModel
		var errSys, errAsset error
		within(t, "decoding a data model", body, func() {
			errSys = decodeAnswer(body, "", &sys)
			errAsset = decodeAnswer(body, "", &asset)
		})
		if errSys == nil {
			if _, err := json.Marshal(sys); err != nil {
				t.Fatalf("a system model read cannot be written: %v", err)
			}
		}
		if errAsset == nil {
			if _, err := json.Marshal(asset); err != nil {
				t.Fatalf("an asset model read cannot be written: %v", err)
			}
		}
	})
}
