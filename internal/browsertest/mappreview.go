package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// MapPage is a layer or set page whose map preview (web/mappreview)
// has drawn, open in a headless Chromium.
type MapPage struct {
	t      testing.TB
	ctx    context.Context
	fail   func(format string, args ...any)
	cancel context.CancelFunc
}

// mapStateJS yields the map element's state: "ready" once the map was
// idle, "error: ..." on an error, "" before.
const mapStateJS = `(() => {
	const el = document.getElementById("map");
	if (!el) return "error: the page has no #map";
	if (el.dataset.state === "error") return "error: " + el.dataset.error;
	return el.dataset.state || "";
})()`

// OpenMapPage opens pageURL with the cookies set for its origin, waits
// until the map is idle and no request has been in flight for a moment,
// and checks that the page loaded nothing from other hosts and broke no
// Content-Security-Policy rule. It fails the test on an error or a
// timeout (Timeout), with the page's console and failed requests. Close
// it when done.
func OpenMapPage(t testing.TB, pageURL string, cookies ...*http.Cookie) *MapPage {
	t.Helper()
	ctx, cancel, m, fail := navigate(t, pageURL, cookies)
	p := &MapPage{t: t, ctx: ctx, cancel: cancel, fail: fail}
	state, err := chromedp.Run(ctx, chromedp.Poll[string](mapStateJS+` || null`,
		chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		p.fail("the map never became idle: %v", err)
	}
	if state != "ready" {
		p.fail("the map failed: %s", state)
	}
	if err := m.waitIdle(ctx, 300*time.Millisecond); err != nil {
		p.fail("the page did not settle: %v", err)
	}
	if problems := m.offlineProblems(); len(problems) > 0 {
		t.Errorf("browsertest: the map page is not self-contained:\n  %s", strings.Join(problems, "\n  "))
	}
	return p
}

// Close stops the browser.
func (p *MapPage) Close() { p.cancel() }

// Point is a position in the page's viewport, in CSS pixels.
type Point struct{ X, Y float64 }

// Project is where longitude, latitude lie in the viewport.
func (p *MapPage) Project(lon, lat float64) Point {
	p.t.Helper()
	js := fmt.Sprintf(`(() => {
		const el = document.getElementById("map"), r = el.getBoundingClientRect();
		const q = el.geopubMap.project([%g, %g]);
		return {X: r.left + q.x, Y: r.top + q.y};
	})()`, lon, lat)
	pt, err := chromedp.Run(p.ctx, chromedp.Evaluate[Point](js))
	if err != nil {
		p.fail("projecting %g, %g: %v", lon, lat, err)
	}
	return pt
}

// MapBox is the map's rectangle in the viewport: left, top, right, bottom.
func (p *MapPage) MapBox() [4]float64 {
	p.t.Helper()
	box, err := chromedp.Run(p.ctx, chromedp.Evaluate[[4]float64](`(() => {
		const r = document.getElementById("map").getBoundingClientRect();
		return [r.left, r.top, r.right, r.bottom];
	})()`))
	if err != nil {
		p.fail("reading the map's position: %v", err)
	}
	return box
}

// Screenshot is the viewport, one image pixel per CSS pixel times the
// device pixel ratio (scale).
func (p *MapPage) Screenshot() (img image.Image, scale float64) {
	p.t.Helper()
	b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.fail("taking a screenshot: %v", err)
	}
	if img, err = png.Decode(bytes.NewReader(b)); err != nil {
		p.fail("decoding the screenshot: %v", err)
	}
	if scale, err = chromedp.Run(p.ctx, chromedp.Evaluate[float64](`window.devicePixelRatio`)); err != nil {
		p.fail("reading the pixel ratio: %v", err)
	}
	return img, scale
}

// popupJS yields the text of the open popup, "" when there is none.
const popupJS = `(() => {
	const el = document.querySelector(".maplibregl-popup-content");
	return el ? el.innerText : "";
})()`

// ClickPopup clicks the viewport at pt and returns the text of the popup
// that opens ("" if none opens within two seconds).
func (p *MapPage) ClickPopup(pt Point) string {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.MouseClickXY(pt.X, pt.Y)); err != nil {
		p.fail("clicking at %v: %v", pt, err)
	}
	for start := time.Now(); time.Since(start) < 2*time.Second; time.Sleep(50 * time.Millisecond) {
		text, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](popupJS))
		if err != nil {
			p.fail("reading the popup: %v", err)
		}
		if text != "" {
			return text
		}
	}
	return ""
}

// PopupBox is the open popup's rectangle in the viewport (left, top,
// right, bottom) and whether some of its content scrolls (is taller than
// shown).
func (p *MapPage) PopupBox() (box [4]float64, scrolls bool) {
	p.t.Helper()
	type popup struct {
		Box     [4]float64
		Scrolls bool
	}
	r, err := chromedp.Run(p.ctx, chromedp.Evaluate[popup](`(() => {
		const el = document.querySelector(".maplibregl-popup");
		if (!el) return {Box: [0, 0, 0, 0], Scrolls: false};
		const r = el.getBoundingClientRect();
		const s = [...el.querySelectorAll("*")].some(c => c.scrollHeight > c.clientHeight + 1 &&
			getComputedStyle(c).overflowY === "auto");
		return {Box: [r.left, r.top, r.right, r.bottom], Scrolls: s};
	})()`))
	if err != nil {
		p.fail("reading the popup's position: %v", err)
	}
	return r.Box, r.Scrolls
}
