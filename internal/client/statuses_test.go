package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestStatusTableHasEveryStatus: every 4xx and 5xx status that Go's registry knows
// (RFC 9110 and its companions) has a row, with a meaning for every kind of call
// or, where it has none, an empty row that says so; and every row is a registered
// status. A status added to the registry, or a row removed, fails here.
func TestStatusTableHasEveryStatus(t *testing.T) {
	t.Parallel()
	for status := 400; status <= 599; status++ {
		row, ok := statusMeanings[status]
		if http.StatusText(status) == "" {
			if ok {
				t.Errorf("the table has a row for %d, which no RFC defines", status)
			}
			continue
		}
		if !ok {
			t.Errorf("%d %s has no row in the status table", status, http.StatusText(status))
			continue
		}
		if len(row) != 0 && len(row) != len(CallKinds) {
			t.Errorf("%d %s has a meaning for %d kinds of call, want all %d or none", status, http.StatusText(status), len(row), len(CallKinds))
		}
	}
}

// TestStatusesByMeaning derives its cases from the table: for every status of every
// row and every kind of call (a score's read and delete, the settings' write), the
// platform answers the call with that status, and the error the caller gets says
// what the table says: the same status and call kind, and exactly the predicate of
// its meaning. A read answered with a Gone status drops the object as a 404 does
// (the collection answered), a delete forgives it.
func TestStatusesByMeaning(t *testing.T) {
	t.Parallel()
	calls := []struct {
		kind         CallKind
		alwaysServed bool // the path always exists (contract §0)
		route        string
		call         func(ctx context.Context, c *Client) error
	}{
		{CallRead, false, "GET " + routeScores + "/gone-or-not", func(ctx context.Context, c *Client) error {
			_, err := c.GetScore(ctx, "gone-or-not")
			return err
		}},
		{CallDelete, false, "DELETE " + routeScores + "/gone-or-not", func(ctx context.Context, c *Client) error {
			return c.DeleteScore(ctx, "gone-or-not", false)
		}},
		{CallWrite, true, "PUT " + emulator.AdminPath + "/externalauth", func(ctx context.Context, c *Client) error {
			_, err := c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "CORP"})
			return err
		}},
	}
	if len(calls) != len(CallKinds) {
		t.Fatalf("the test calls %d kinds of call, the table has %d", len(calls), len(CallKinds))
	}
	predicates := map[Meaning]func(error) bool{
		Gone: IsNotFound, Conflict: IsConflict, RefusedArguments: IsBadArgument,
		RefusedCredentials: IsUnauthorized, NotAllowed: IsForbidden,
	}
	statuses := StatusesWithMeanings()
	slices.Sort(statuses)
	for _, status := range statuses {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			p := newProxiedPlatform(t, emulator.Options{})
			for _, call := range calls {
				p.handle(call.route, func(w http.ResponseWriter, _ *http.Request) {
					writeProblem(w, status, "publishing/ANSWER", "answered "+http.StatusText(status))
				})
			}
			cfg := p.config()
			cfg.MaxRetries = NoRetries
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			for _, call := range calls {
				want := MeaningOf(call.kind, status)
				err := call.call(t.Context(), c)
				if err == nil {
					t.Errorf("%s answered %d: no error", call.kind, status)
					continue
				}
				if call.alwaysServed && want == Gone {
					// The settings are a path the platform always serves: one that is
					// not there is the address's fault, and the error names the setting.
					if !IsAddressError(err) || !strings.Contains(err.Error(), "admin_url") {
						t.Errorf("%s answered %d: not an address error naming admin_url: %v", call.kind, status, err)
					}
					continue
				}
				got, kind, gotStatus := MeaningOfError(err)
				if gotStatus != status || kind != call.kind || got != want {
					t.Errorf("%s answered %d: the error means %q for a %s answered %d, the table %q: %v",
						call.kind, status, got, kind, gotStatus, want, err)
				}
				for m, holds := range predicates {
					if holds(err) != (m == want) {
						t.Errorf("%s answered %d (%s): the predicate of %q says %t", call.kind, status, want, m, holds(err))
					}
				}
				if !strings.Contains(err.Error(), fmt.Sprint(status)) {
					t.Errorf("%s answered %d: the error does not name the status: %v", call.kind, status, err)
				}
			}
		})
	}
}

// TestMeaninglessStatusIsNamed: a status the table gives no meaning (418) satisfies no
// predicate, and its error names it.
func TestMeaninglessStatusIsNamed(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("reading: %w", &APIError{Status: http.StatusTeapot, Method: http.MethodGet, Path: "/scores/x"})
	if m, kind, status := MeaningOfError(err); m != Meaningless || kind != CallRead || status != http.StatusTeapot {
		t.Errorf("MeaningOfError = %v, %v, %d", m, kind, status)
	}
	if IsNotFound(err) || IsConflict(err) || IsBadArgument(err) || IsForbidden(err) || IsUnauthorized(err) {
		t.Error("a meaningless status satisfies a predicate")
	}
	if !strings.Contains(err.Error(), "418") {
		t.Errorf("the error does not name the status: %v", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatal("not an APIError")
	}
}
