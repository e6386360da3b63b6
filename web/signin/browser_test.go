package signin_test

import (
	"context"
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
		var shown string
		var cookies []*network.Cookie
		err := chromedp.Run(ctx,
			chromedp.Navigate(z.env.HTTP.URL+"/signin/?next=/signin/"),
			chromedp.WaitVisible(`a.provider`, chromedp.ByQuery),
			chromedp.Click(`a.provider`, chromedp.ByQuery),
			chromedp.WaitVisible(`#username`, chromedp.ByID),
			chromedp.SendKeys(`#username`, "browser-user", chromedp.ByID),
			chromedp.SendKeys(`#password`, ssoOPPassword, chromedp.ByID),
			chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#signed-in-user`, chromedp.ByID),
			chromedp.Text(`#signed-in-user`, &shown, chromedp.ByID),
			chromedp.ActionFunc(func(ctx context.Context) error {
				var err error
				cookies, err = network.GetCookies().WithURLs([]string{z.env.HTTP.URL + "/"}).Do(ctx)
				return err
			}),
		)
		if err != nil {
			t.Fatalf("signing in through the browser: %v\n%s", err, output())
		}
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
