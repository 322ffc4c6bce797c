package client

import "testing"

// urlEquivalenceCases are pairs of addresses and whether RFC 3986 §6.2.2–6.2.3 makes
// them the same URI.
var urlEquivalenceCases = []struct {
	a, b string
	same bool
}{
	// §6.2.2.1: case of the scheme and the host, and of percent-encodings' hex digits.
	{"https://Scores.Example.COM/sn/h-b.sib", "https://scores.example.com/sn/h-b.sib", true},
	{"HTTPS://scores.example.com/a", "https://scores.example.com/a", true},
	{"https://cdn.example/Caf%c3%a9.sib", "https://cdn.example/Caf%C3%A9.sib", true},
	{"https://cdn.example/a?x=%c3%a9#f%2f", "https://cdn.example/a?x=%C3%A9#f%2F", true},
	// §6.2.2.2: percent-encoded unreserved characters decoded.
	{"https://cdn.example/%7Euser/%41%2d%5f.sib", "https://cdn.example/~user/A-_.sib", true},
	{"https://%63dn.example/a", "https://cdn.example/a", true},
	{"https://cdn.example/%2F", "https://cdn.example//", false}, // "/" is reserved: not decoded
	// §6.2.2.3: dot segments.
	{"https://cdn.example/x/../sn/./h-b.sib", "https://cdn.example/sn/h-b.sib", true},
	{"https://cdn.example/a/b/..", "https://cdn.example/a/", true},
	{"https://cdn.example/../a", "https://cdn.example/a", true},
	{"https://cdn.example/a/%2E%2E/b", "https://cdn.example/b", true},
	{"https://cdn.example/a..b/c", "https://cdn.example/a..b/c", true},
	// §6.2.3: the scheme's default port, an empty port, an empty path.
	{"https://scores.example.com:443/a", "https://scores.example.com/a", true},
	{"http://scores.example.com:80/a", "http://scores.example.com/a", true},
	{"https://scores.example.com:/a", "https://scores.example.com/a", true},
	{"https://scores.example.com", "https://scores.example.com/", true},
	{"http://scores.example.com:80", "http://scores.example.com/", true},
	{"https://scores.example.com:80/a", "https://scores.example.com/a", false},
	{"http://scores.example.com:443/a", "http://scores.example.com/a", false},
	{"https://scores.example.com:8443/a", "https://scores.example.com:8443/a", true},
	{"https://[2001:DB8::1]:443/a", "https://[2001:db8::1]/a", true},
	{"https://[2001:db8::1]:8443/a", "https://[2001:db8::1]/a", false},
	// What stays as written: the case of the path, the query, the user information; a
	// trailing slash; the query's order; the scheme.
	{"https://scores.example.com/a", "https://scores.example.com/b", false},
	{"https://scores.example.com/A", "https://scores.example.com/a", false},
	{"https://scores.example.com/a/", "https://scores.example.com/a", false},
	{"https://cdn.example/a?X=1", "https://cdn.example/a?x=1", false},
	{"https://cdn.example/a?x=1&y=2", "https://cdn.example/a?y=2&x=1", false},
	{"https://User@cdn.example/a", "https://user@cdn.example/a", false},
	{"http://cdn.example/a", "https://cdn.example/a", false},
	{"https://cdn.example/a", "https://cdn.example/a?", false},
	{"https://cdn.example/a%20b", "https://cdn.example/a b", false},
	// Not a URI with a scheme: equivalent only to itself.
	{"", "", true},
	{"not a url", "not a url", true},
	{"//cdn.example/a", "//CDN.example/a", false},
	{"https://cdn.example/a%zz", "https://cdn.example/a%zz", true},
	{"https://cdn.example/a%zz", "https://cdn.example/a%ZZ", false},
}

func TestEquivalentURLs(t *testing.T) {
	for _, c := range urlEquivalenceCases {
		if got := EquivalentURLs(c.a, c.b); got != c.same {
			t.Errorf("EquivalentURLs(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
		if got := EquivalentURLs(c.b, c.a); got != c.same {
			t.Errorf("EquivalentURLs(%q, %q) = %v, want %v (not symmetric)", c.b, c.a, got, c.same)
		}
	}
}

func TestNormalURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://Scores.Example.COM:443/x/../sn/Caf%c3%a9.sib": "https://scores.example.com/sn/Caf%C3%A9.sib",
		"HTTP://Cdn.Example:80":                                "http://cdn.example/",
		"https://cdn.example:08443/%7e/a?q=%3d#F":              "https://cdn.example:8443/~/a?q=%3D#F",
		"mailto:%7eA@Example.COM":                              "mailto:~A@Example.COM",
	} {
		if got, ok := NormalURL(in); !ok || got != want {
			t.Errorf("NormalURL(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// FuzzEquivalentURLs checks the relation's laws on any input: a string is equivalent
// to itself and to its normal form, the normal form is a fixed point, the relation is
// symmetric, and two strings with different normal forms are never equivalent.
func FuzzEquivalentURLs(f *testing.F) {
	for _, c := range urlEquivalenceCases {
		f.Add(c.a, c.b)
	}
	f.Add("https://a.example:0443/./b/../%2e%2E/c", "https://A.EXAMPLE/c")
	f.Add("http://[::1]:80", "http://[::1]/")
	f.Add("https://u:p%3a@h:/%", "https://u:p%3A@h/%")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !EquivalentURLs(a, a) {
			t.Fatalf("%q is not equivalent to itself", a)
		}
		if EquivalentURLs(a, b) != EquivalentURLs(b, a) {
			t.Fatalf("not symmetric for %q and %q", a, b)
		}
		na, ok := NormalURL(a)
		if !ok {
			if na != a {
				t.Fatalf("NormalURL(%q) changed a string without a scheme to %q", a, na)
			}
			return
		}
		if again, _ := NormalURL(na); again != na {
			t.Fatalf("NormalURL is not idempotent: %q → %q → %q", a, na, again)
		}
		if !EquivalentURLs(a, na) {
			t.Fatalf("%q is not equivalent to its normal form %q", a, na)
		}
		if nb, okB := NormalURL(b); okB && a != b && nb != na && EquivalentURLs(a, b) {
			t.Fatalf("%q and %q are equivalent with different normal forms %q, %q", a, b, na, nb)
		}
	})
}
