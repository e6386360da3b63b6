package signin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/browsertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// TestSSOSignInThroughChromium: a person opens the sign-in page in
// headless Chromium, presses the provider's button, fills zitadel's login
// form, comes back signed in on the page next named, and the browser's
// session cookie then works on GET /users/me.
func TestSSOSignInThroughChromium(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		z := ssoStartZitadel(t, st, ssoOPUsers{"b1": ssoOPUser("b1", "browser-user", "browser@example.org", true)})
		ctx, cancel, output := browsertest.NewBrowser(t, 2*browsertest.Timeout)
		defer cancel()
		err := chromedp.Do(ctx,
			chromedp.Navigate(z.env.HTTP.URL+"/signin/?next=/signin/"),
			chromedp.WaitVisible(chromedp.CSS(`a.provider`)),
			chromedp.Click(chromedp.CSS(`a.provider`)),
			chromedp.WaitVisible(chromedp.CSS(`#username`)),
			chromedp.SendKeys(chromedp.CSS(`#username`), "browser-user"),
			chromedp.SendKeys(chromedp.CSS(`#password`), ssoOPPassword),
			chromedp.Click(chromedp.CSS(`button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#signed-in-user`)),
		)
		if err != nil {
			t.Fatalf("signing in through the browser: %v\n%s", err, output())
		}
		shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#signed-in-user`)))
		if err != nil {
			t.Fatalf("reading the signed-in user: %v", err)
		}
		got, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{z.env.HTTP.URL + "/"}})
		if err != nil {
			t.Fatalf("reading the browser's cookies: %v", err)
		}
		cookies := got.Cookies
		if strings.TrimSpace(shown) != "browser@example.org" {
			t.Fatalf("the page shows %q signed in", shown)
		}
		var value string
		for _, c := range cookies {
			if c.Name == auth.SessionCookie {
				value = c.Value
			}
		}
		if value == "" {
			t.Fatalf("no session cookie in the browser: %v", cookies)
		}
		req, _ := http.NewRequest(http.MethodGet, z.env.API+"/users/me/", nil)
		req.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: value})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"email":"browser@example.org"`) {
			t.Fatalf("users/me with the browser's session: %d %s", resp.StatusCode, body)
		}
	})
}
