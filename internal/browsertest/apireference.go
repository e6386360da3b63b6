package browsertest

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// referenceJS lists the operations the API reference page shows, as
// "METHOD path", where its link to the document leads, and the resources
// it loaded from elsewhere.
const referenceJS = `(() => ({
	operations: [...document.querySelectorAll("section.op h3")].map(h => h.innerText.replace(/\s+/g, " ").trim()),
	document: (document.querySelector('a[href$="openapi.json"]') || {}).href || "",
	outside: performance.getEntriesByType("resource").map(e => e.name).filter(u => !u.startsWith(location.origin)),
}))()`

// ReferencePage is what a browser shows of the API reference page.
type ReferencePage struct {
	Operations []string `json:"operations"`
	Document   string   `json:"document"`
	Outside    []string `json:"outside"`
}

// OpenReference loads the API reference page at pageURL in headless
// Chromium and returns the operations it shows, the address of its link
// to the document and any resource it fetched from another origin.
func OpenReference(t testing.TB, pageURL string) ReferencePage {
	t.Helper()
	ctx, cancel, output := NewBrowser(t, Timeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.NavigateResponse(pageURL)); err != nil {
		t.Fatalf("opening %s: %v\nbrowser output:\n%s", pageURL, err, output())
	}
	page, err := chromedp.Run(ctx, chromedp.Evaluate[ReferencePage](referenceJS))
	if err != nil {
		t.Fatalf("loading %s: %v\nbrowser output:\n%s", pageURL, err, output())
	}
	return page
}
