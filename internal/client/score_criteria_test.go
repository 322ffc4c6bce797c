package client

// The criteria of a list or count in every form the specification's words allow: JSON
// text in the query, bracket form, a JSON body; learned once and shared.

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// criteriaScores publishes three scores, two of them from one address, and returns it.
func criteriaScores(t *testing.T, env *emuEnv) string {
	t.Helper()
	c := env.client()
	for _, u := range []string{"https://cdn.example/twice.sib", "https://cdn.example/twice.sib", "https://cdn.example/once.sib"} {
		if _, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: u}); err != nil {
			t.Fatal(err)
		}
	}
	return "https://cdn.example/twice.sib"
}

// listRequests is the number of GET /scores the emulator answered.
func listRequests(env *emuEnv) int { return env.stats().Requests["GET "+routeScores] }

// TestCriteriaInBracketForm: on a platform that reads objects in the query only in
// bracket form (the reading bracketQueryObjects), the first list with criteria is
// answered 400 and sent again in bracket form; every later list and count of the
// client sends that form at once.
func TestCriteriaInBracketForm(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	twice := criteriaScores(t, env)
	env.emu.SetFaults(emulator.Faults{Readings: emulator.Readings{BracketQueryObjects: true}})
	c, p := env.proxiedClient()
	scores, err := c.ListScores(env.ctx, ListScoresInput{Criteria: ScoreCriteria{ScoreURL: twice}})
	if err != nil || len(scores) != 2 {
		t.Fatalf("listing by address: %d scores, %v; want 2", len(scores), err)
	}
	if _, err := c.CountScores(env.ctx, CountScoresInput{Criteria: ScoreCriteria{ScoreURL: twice}, Offset: 1}); err != nil {
		t.Fatalf("counting: %v", err)
	}
	all, err := c.ListAllScores(env.ctx, ScoreCriteria{Status: ScoreStatusIdle}, 0, 0)
	if err != nil {
		t.Fatalf("listing by status: %v", err)
	}
	for _, s := range all {
		if s.Status != ScoreStatusIdle {
			t.Errorf("listed a score in status %q", s.Status)
		}
	}
	var forms []string
	for _, r := range p.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/scores") {
			q, _ := url.ParseQuery(r.Query)
			switch {
			case q.Has("score"):
				forms = append(forms, "json")
			case q.Has("score[scoreUrl]") || q.Has("score[status]"):
				forms = append(forms, "brackets")
			}
		}
	}
	if len(forms) < 3 || forms[0] != "json" || slices.Contains(forms[1:], "json") {
		t.Errorf("the lists were sent as %q, want the JSON text once, then the bracket form only", forms)
	}
}

// TestCriteriaInABody: a platform that refuses an object in the query in any form
// (400) and reads it from a JSON body: the list is sent in each form once, and from
// then on in the body at once.
func TestCriteriaInABody(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	twice := criteriaScores(t, env)
	c, p := env.proxiedClient()
	target, err := url.Parse(env.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var forms []string
	p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Handle: func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for key := range r.URL.Query() {
			if key == "score" || strings.HasPrefix(key, "score[") {
				forms = append(forms, key)
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"code":"publishing/BAD_ARGUMENT","message":"score is read from the body only"}`))
				return
			}
		}
		forms = append(forms, "body")
		forward.ServeHTTP(w, r)
	}})
	for range 2 {
		scores, err := c.ListScores(env.ctx, ListScoresInput{Criteria: ScoreCriteria{ScoreURL: twice}})
		if err != nil || len(scores) != 2 {
			t.Fatalf("listing by address: %d scores, %v; want 2", len(scores), err)
		}
	}
	if got := strings.Join(forms, " "); got != "score score[scoreUrl] body body" {
		t.Errorf("the lists were sent as %q, want the JSON text, the bracket form, then the body twice", got)
	}
}

// TestCriteriaRefusedInEveryForm: criteria that the platform refuses in every form
// (400 each time) end with the first form's error, and teach the client nothing.
func TestCriteriaRefusedInEveryForm(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Respond: &faultproxy.Answer{Status: http.StatusBadRequest,
		Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body:   `{"code":"publishing/BAD_ARGUMENT","message":"no such status"}`}})
	_, err := c.ListScores(env.ctx, ListScoresInput{Criteria: ScoreCriteria{Status: "nonsense"}})
	if statusOf(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "no such status") {
		t.Fatalf("want the platform's 400, got %v", err)
	}
	n := 0
	for _, r := range p.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/scores") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d requests, want one in each of the 3 forms", n)
	}
	if _, known := c.criteria.form(); known {
		t.Error("a form was learned from refusals only")
	}
}

// TestCriteriaFormFoundOnceForConcurrentCalls: concurrent lists with criteria on the
// bracket platform wait for the one call that finds the form: one 400 in all.
func TestCriteriaFormFoundOnceForConcurrentCalls(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	twice := criteriaScores(t, env)
	env.emu.SetFaults(emulator.Faults{Readings: emulator.Readings{BracketQueryObjects: true}})
	c := env.client()
	before := listRequests(env)
	const calls = 8
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			scores, err := c.ListScores(env.ctx, ListScoresInput{Criteria: ScoreCriteria{ScoreURL: twice}})
			if err == nil && len(scores) != 2 {
				err = context.DeadlineExceeded // any error: the count is wrong
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a concurrent list: %v", err)
		}
	}
	if n := listRequests(env) - before; n != calls+1 {
		t.Errorf("%d concurrent lists took %d requests, want %d (one 400)", calls, n, calls+1)
	}
}

// TestCriteriaOnTheContractsPlatformCostNothing: on the contract's platform a list
// with criteria is one request, in JSON text, as before.
func TestCriteriaOnTheContractsPlatformCostNothing(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	twice := criteriaScores(t, env)
	c, p := env.proxiedClient()
	for range 2 {
		if scores, err := c.ListScores(env.ctx, ListScoresInput{Criteria: ScoreCriteria{ScoreURL: twice}}); err != nil || len(scores) != 2 {
			t.Fatalf("listing by address: %d scores, %v; want 2", len(scores), err)
		}
	}
	var lists []string
	for _, r := range p.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/scores") {
			lists = append(lists, r.Query)
		}
	}
	want := "score=" + url.QueryEscape(`{"scoreUrl":"`+twice+`"}`)
	if len(lists) != 2 || lists[0] != want || lists[1] != want {
		t.Errorf("the lists were sent as %q, want twice %q", lists, want)
	}
}

// TestBracketParams: objects nest in brackets, members in order.
func TestBracketParams(t *testing.T) {
	t.Parallel()
	q := url.Values{}
	bracketParams(q, "score", map[string]any{"status": "idle", "publisher": map[string]any{"scoreId": "a b"}, "n": 2})
	if got, want := q.Encode(), "score%5Bn%5D=2&score%5Bpublisher%5D%5BscoreId%5D=a+b&score%5Bstatus%5D=idle"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestCriteriaInBracketFormWithCountByGet: the bracket platform that counts only with
// GET (contract §V3): the GET count, which carries no body, finds the bracket form,
// and the count is right.
func TestCriteriaInBracketFormWithCountByGet(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	twice := criteriaScores(t, env)
	env.emu.SetFaults(emulator.Faults{Readings: emulator.Readings{BracketQueryObjects: true, CountGetOnly: true}})
	c := env.client()
	for range 2 {
		n, err := c.CountScores(env.ctx, CountScoresInput{Criteria: ScoreCriteria{ScoreURL: twice}})
		if err != nil || n != 2 {
			t.Fatalf("count by address: %d, %v; want 2", n, err)
		}
	}
	if form, known := c.criteria.form(); !known || form != criteriaBrackets {
		t.Errorf("learned %v (known %v), want the bracket form", form, known)
	}
	if n := env.stats().Requests["GET "+routeScores+"/count"]; n != 3 {
		t.Errorf("GET /scores/count %d times, want 3 (a 400, then one per count)", n)
	}
}
