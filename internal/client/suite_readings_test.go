package client

import (
	"encoding/json"
	"testing"
	"time"
)

// TestHuntReadings: readings the specification allows that no report named, found by
// walking the rules over the table's rows (docs/development/platform-readings.md,
// "The hunt").
func TestHuntReadings(t *testing.T) {
	t.Parallel()
	t.Run("numbers as strings and extra wrapper members", func(t *testing.T) {
		t.Parallel()
		var n *int
		if err := decodeAnswer([]byte(`{"count": "7", "_links": {"self": {"href": "/x"}}}`), "count", &n); err != nil || n == nil || *n != 7 {
			t.Errorf("a count as a string (protojson int64): %v, %v", n, err)
		}
		var s *Score
		if err := decodeAnswer([]byte(`{"score": {"id": "a", "createdAt": 1764024352}, "_links": {}, "requestId": "r-1"}`), "score", &s); err != nil ||
			s == nil || s.ID != "a" || !s.CreatedAt.Equal(time.Unix(1764024352, 0)) {
			t.Errorf("a wrapped score beside other members, a timestamp as epoch seconds: %+v, %v", s, err)
		}
		if err := decodeAnswer([]byte(`{"score": {"id": "b", "status": "idle", "renderings": [{"format": "svg", "pages": "3"}]}}`), "score", &s); s == nil || s.ID != "b" || s.Status != "idle" {
			t.Errorf("a score with a member of another type: %+v, %v", s, err)
		}
		var list []*Score
		if err := decodeAnswer([]byte(`{"scores": [{"id": "a", "renderings": [{"pages": "3"}]}, {"id": "b"}]}`), "scores", &list); err != nil || len(list) != 2 {
			t.Errorf("a list with a score holding a member of another type: %d scores, %v", len(list), err)
		}
		if err := decodeAnswer([]byte(`{"scores": null, "total": "0"}`), "scores", &list); err != nil || len(list) != 0 {
			t.Errorf("a null list: %v, %v", list, err)
		}
	})
	t.Run("link relations in another case", func(t *testing.T) {
		t.Parallel()
		var doc struct {
			Links Links `json:"_links"`
		}
		if err := json.Unmarshal([]byte(`{"_links": {"Auth:Token": [{"href": "/auth/tokens/current{?fields}", "name": "current"}]}}`), &doc); err != nil {
			t.Fatal(err)
		}
		if l, ok := doc.Links.Named("auth:token", "current"); !ok || l.Href != "/auth/tokens/current" {
			t.Errorf("auth:token spelt Auth:Token: %+v, %v", l, ok)
		}
	})
}
