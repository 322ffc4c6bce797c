package emulator

// The token service moving while clients run (MoveTokenService): /auth names the new
// paths, the old ones answer 404 or 410, and the tokens granted before stay valid.

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestMoveTokenService(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotFound, http.StatusGone} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			et := newEmuTester(t, Options{})
			base := et.e.PlatformURL(et.srv.URL)
			before := et.platformLogin(DefaultUserName, DefaultUserPassword)

			et.e.MoveTokenService(status)

			// /auth leads to the new home, and every link of the flow follows it.
			root := et.do(http.MethodGet, base+"/auth", nil, nil).wantJSON(t, 200, "application/hal+json")
			links := emuObject(t, root["_links"])
			idp := emuString(t, emuHrefs(t, links, "auth:identity-providers")[0]["href"])
			info := emuString(t, emuHrefs(t, links, "auth:token")[0]["href"])
			if idp != base+tokenHomes[1].identityProviders || info != base+tokenHomes[1].tokenInfo {
				t.Fatalf("after the move /auth links to %s and %s, want the new home %s", idp, info, tokenHomes[1])
			}
			list := et.do(http.MethodGet, idp, nil, nil).wantJSON(t, 200, "application/hal+json")
			providers := emuArray(t, emuObject(t, list["_embedded"])["auth:identity-provider"])
			ropc := emuString(t, emuHrefs(t, emuObject(t, emuObject(t, providers[1])["_links"]), "auth:ropc-default")[0]["href"])
			if ropc != base+tokenHomes[1].ropc {
				t.Errorf("the password grant after the move is at %s, want %s", ropc, base+tokenHomes[1].ropc)
			}

			// The old paths answer the move's status; the new ones serve.
			form := url.Values{"grant_type": {"password"}, "username": {DefaultUserName}, "password": {DefaultUserPassword}}
			et.grant(form).wantProblem(t, status, map[int]string{404: "auth/NOT_FOUND", 410: "auth/GONE"}[status], "")
			req := et.request(http.MethodPost, tokenHomes[1].ropc, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.SetBasicAuth(DefaultClientID, DefaultClientSecret)
			et.send(req).wantJSON(t, 200, "application/json")
			et.bearer(http.MethodGet, tokenHomes[0].tokenInfo, before).wantStatus(t, status)

			// A token granted before the move stays valid, and its links lead to the new home.
			doc := et.bearer(http.MethodGet, tokenHomes[1].tokenInfo, before).wantJSON(t, 200, "application/hal+json")
			tokenLinks := emuObject(t, doc["_links"])
			if got := emuString(t, emuHrefs(t, tokenLinks, "auth-token:removal")[0]["href"]); got != base+tokenHomes[1].tokenInfo {
				t.Errorf("removal link after the move = %s, want %s", got, base+tokenHomes[1].tokenInfo)
			}
			et.bearer(http.MethodDelete, tokenHomes[1].tokenInfo, before).wantStatus(t, http.StatusNoContent)

			// Reset brings the token service home; the second home is no address again.
			et.e.Reset()
			et.platformLogin(DefaultUserName, DefaultUserPassword)
			et.bearer(http.MethodGet, tokenHomes[1].tokenInfo, "any").wantStatus(t, http.StatusNotFound)
		})
	}
}
