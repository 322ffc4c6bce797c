package client

// A publish answered 201 Created with the new score's Location and no body (rule 19).

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestPublishCreated: on a platform that answers every publish 201 Created with the
// score's Location and no body (the reading publishCreated), each publish is a proven
// write: the score is read back with one GET, never looked for in a listing, and two
// scores of one scoreUrl are both published. Before, each was an unknown outcome
// recovered from the listing, and the second score of a scoreUrl failed.
func TestPublishCreated(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "publishCreated")
	ids := map[string]bool{}
	for _, in := range []PublishScoreInput{
		{ScoreURL: "https://cdn.example/created.sib", Alias: "created"},
		{ScoreURL: "https://cdn.example/twin.sib"},
		{ScoreURL: "https://cdn.example/twin.sib", Transpose: true},
	} {
		s, err := c.PublishScore(env.ctx, in)
		if err != nil {
			t.Fatalf("publish %+v: %v", in, err)
		}
		if s.ID == "" || ids[s.ID] || s.Recovered != "" || s.ScoreURL != in.ScoreURL || s.Alias != in.Alias ||
			s.Transpose != in.Transpose || s.Status == "" || s.CreatedAt.IsZero() {
			t.Errorf("publish %+v: got %+v", in, s)
		}
		ids[s.ID] = true
	}
	st := env.stats()
	if st.Scores != 3 || st.Requests["POST "+routeScores] != 3 || st.Requests["GET "+routeScoreByID] != 3 || st.Requests["GET "+routeScores] != 0 {
		t.Errorf("%d scores; %d publishes, %d reads back and %d listings, want 3; 3, 3 and 0", st.Scores,
			st.Requests["POST "+routeScores], st.Requests["GET "+routeScoreByID], st.Requests["GET "+routeScores])
	}
}

// locationRewrite returns a Header rewrite that sets Location to form(p), p being the
// escaped path of the platform's Location.
func locationRewrite(t *testing.T, form func(p string) string) func(http.Header) {
	return func(h http.Header) {
		u, err := url.Parse(h.Get("Location"))
		if err != nil || h.Get("Location") == "" {
			t.Errorf("the platform's Location %q", h.Get("Location"))
			return
		}
		h.Set("Location", form(u.EscapedPath()))
	}
}

// TestPublishCreatedLocationForms: the Location is read in every spelling of an
// address under publishing_url's /scores/ on its host: relative to the host or to
// the request, the scheme and host in another case or form, the default port
// written, a percent-encoded unreserved character, dot segments.
func TestPublishCreatedLocationForms(t *testing.T) {
	t.Parallel()
	for name, form := range map[string]func(origin *url.URL, p string) string{
		"absolute path":        func(_ *url.URL, p string) string { return p },
		"relative to the POST": func(_ *url.URL, p string) string { return "scores/" + p[strings.LastIndex(p, "/")+1:] },
		"scheme in upper case": func(o *url.URL, p string) string { return "HTTP://" + o.Host + p },
		"IPv4-mapped IPv6 host": func(o *url.URL, p string) string {
			return "http://[::ffff:" + o.Hostname() + "]:" + o.Port() + p
		},
		"percent-encoded unreserved": func(o *url.URL, p string) string {
			return "http://" + o.Host + strings.Replace(p, "media.publishing", "media%2Epublishing", 1)
		},
		"dot segments": func(o *url.URL, p string) string {
			return "http://" + o.Host + strings.Replace(p, "/scores/", "/scores/../scores/./", 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var r emulator.Readings
			r.PublishCreated = true
			env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: r}})
			c, p := env.proxiedClient()
			origin, err := url.Parse(p.URL)
			if err != nil {
				t.Fatal(err)
			}
			p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Header: locationRewrite(t, func(path string) string {
				return form(origin, path)
			})})
			s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/form.sib"})
			if err != nil || s.Recovered != "" || s.ScoreURL != "https://cdn.example/form.sib" || s.CreatedAt.IsZero() {
				t.Fatalf("got %+v, %v; want a proven write", s, err)
			}
			if n := env.stats().Requests["GET "+routeScores]; n != 0 {
				t.Errorf("%d listings, want 0", n)
			}
		})
	}
}

// TestPublishCreatedElsewhere: a 201 whose Location is not a score under
// publishing_url on its host proves nothing: the write is an unknown outcome,
// recovered from the listing as a lost answer is, and nothing is sent to the
// Location's host (the read back would carry the platform token there).
func TestPublishCreatedElsewhere(t *testing.T) {
	t.Parallel()
	rec := faultproxy.StartRecorder()
	t.Cleanup(rec.Close)
	t.Cleanup(func() { // after the subtests
		if got := rec.Requests(); len(got) != 0 {
			t.Errorf("%d requests went to the Location's host, want none: %+v", len(got), got[0])
		}
	})
	for name, form := range map[string]func(origin *url.URL, p string) string{
		"another host":       func(_ *url.URL, p string) string { return rec.URL + p },
		"another port":       func(o *url.URL, p string) string { return "http://" + o.Hostname() + ":1" + p },
		"another scheme":     func(o *url.URL, p string) string { return "https://" + o.Host + p },
		"another path":       func(_ *url.URL, p string) string { return "/elsewhere/" + p[strings.LastIndex(p, "/")+1:] },
		"below a score":      func(_ *url.URL, p string) string { return p + "/renderings/1" },
		"the collection":     func(_ *url.URL, p string) string { return p[:strings.LastIndex(p, "/")+1] },
		"a dot segment last": func(_ *url.URL, p string) string { return p + "/.." },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var r emulator.Readings
			r.PublishCreated = true
			env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: r}})
			c, p := env.proxiedClient()
			origin, err := url.Parse(p.URL)
			if err != nil {
				t.Fatal(err)
			}
			p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Header: locationRewrite(t, func(path string) string {
				return form(origin, path)
			})})
			s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/elsewhere.sib"})
			if err != nil || !strings.Contains(s.Recovered, "found by its scoreUrl") {
				t.Fatalf("got %+v, %v; want the score recovered from the listing", s, err)
			}
			if st := env.stats(); st.Scores != 1 || st.Requests["GET "+routeScores] == 0 {
				t.Errorf("%d scores and %d listings, want 1 and at least 1", st.Scores, st.Requests["GET "+routeScores])
			}
		})
	}
}

// TestCreatedScoreID: the Location's id, by the address's equivalence on
// publishing_url's host, and only from a 201.
func TestCreatedScoreID(t *testing.T) {
	t.Parallel()
	const base = "https://mp.example/api/v1/apis/media.publishing;version=2;realm=global"
	reqURL, err := url.Parse(base + "/scores")
	if err != nil {
		t.Fatal(err)
	}
	for loc, want := range map[string]string{
		base + "/scores/3f2a": "3f2a",
		"HTTPS://MP.Example.:443/api/v1/apis/media%2Epublishing;version=2;realm=global/scores/3f2a?view=full": "3f2a",
		"/api/v1/apis/media.publishing;version=2;realm=global/x/../scores/a%20b":                              "a b",
		"//mp.example/api/v1/apis/media.publishing;version=2;realm=global/scores/3f2a":                        "3f2a",
		"https://mp.example:8443/api/v1/apis/media.publishing;version=2;realm=global/scores/3f2a":             "",
		"http://mp.example/api/v1/apis/media.publishing;version=2;realm=global/scores/3f2a":                   "",
		"https://user@other.example/api/v1/apis/media.publishing;version=2;realm=global/scores/3f2a":          "",
		"/api/v1/apis/media.publishing;version=3;realm=global/scores/3f2a":                                    "",
		"/api/v1/apis/media.publishing;version=2;realm=global/scores/%zz":                                     "",
		"/api/v1/apis/media.publishing;version=2;realm=global/scores/3f2a/":                                   "",
	} {
		id, ok := createdScoreID(&response{status: http.StatusCreated, header: http.Header{"Location": {loc}}, url: reqURL}, base)
		if id != want || ok != (want != "") {
			t.Errorf("%s: %q, %v; want %q", loc, id, ok, want)
		}
	}
	if _, ok := createdScoreID(&response{status: http.StatusOK, header: http.Header{"Location": {base + "/scores/3f2a"}}, url: reqURL}, base); ok {
		t.Error("a 200 with a Location: taken as a 201")
	}
}

// FuzzCreatedScoreID: whatever the Location, the reading never panics, and an id it
// takes is non-empty and comes from an address on the platform's host.
func FuzzCreatedScoreID(f *testing.F) {
	const base = "https://mp.example/api/v1/apis/media.publishing;version=2;realm=global"
	for _, seed := range []string{base + "/scores/3f2a", "/api/v1/apis/media.publishing;version=2;realm=global/scores/x", "scores/x",
		"HTTPS://MP.EXAMPLE:443/api/v1/apis/media%2Epublishing;version=2;realm=global/scores/./x", "https://evil.example/scores/x",
		base + "/scores/", base + "/scores/%zz", "//mp.example/x", ""} {
		f.Add(seed)
	}
	reqURL, err := url.Parse(base + "/scores")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, loc string) {
		resp := &response{status: http.StatusCreated, header: http.Header{"Location": {loc}}, url: reqURL}
		id, ok := createdScoreID(resp, base)
		if !ok {
			return
		}
		target, err := reqURL.Parse(loc)
		if id == "" || err != nil || !sameHost(target, reqURL) {
			t.Errorf("%q: took %q from an address that is not on the platform's host", loc, id)
		}
	})
}
