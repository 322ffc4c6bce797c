package client

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorPredicatesThroughWrapping(t *testing.T) {
	t.Parallel()
	for status, pred := range map[int]func(error) bool{404: IsNotFound, 409: IsConflict, 401: IsUnauthorized, 403: IsForbidden} {
		err := fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", &APIError{Status: status}))
		if !pred(err) {
			t.Errorf("%d not recognised through wrapping", status)
		}
		if pred(errors.New("plain")) || pred(nil) {
			t.Errorf("%d: false positive", status)
		}
	}
	e := &APIError{Status: 404, Code: "publishing/NOT_FOUND", Message: "score 'x' does not exist", Method: "GET", Path: "/scores/x"}
	if e.Error() != "GET /scores/x: HTTP 404 publishing/NOT_FOUND: score 'x' does not exist" || e.Name() != "NOT_FOUND" {
		t.Errorf("message %q name %q", e.Error(), e.Name())
	}
}
