// Package markup renders the lightweight markup (Markdown, CommonMark with
// tables, strikethrough and autolinks) that users write in descriptions into
// HTML that is safe to embed in a page. Raw HTML in the input comes back
// escaped, shown as written and never acting as markup, and the output is
// sanitized again with an allow-list, so scripts, event handlers, styles
// and javascript:, vbscript: or data: URLs cannot survive, whatever the
// input.
package markup

import (
	"bytes"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// md converts Markdown. It is built without the html.WithUnsafe option, so
// goldmark drops dangerous link and image destinations itself, and raw HTML
// in the text is rendered escaped (see escapeRaw), shown as written.
var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(escapeRaw{}, 100))),
)

// policy is the allow-list the rendered HTML passes through: the elements
// Markdown produces, links to http, https and mailto only (opened with
// rel="nofollow noopener"), images from http and https only, no attributes
// that run code or change styling.
var policy = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.RequireNoFollowOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(false)
	p.RequireNoReferrerOnLinks(false)
	return p
}()

// HTML renders src to safe HTML. Blank input gives "".
func HTML(src string) string {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		// Markdown conversion does not fail on any input; should it, the
		// text is still shown, escaped.
		return policy.Sanitize("<p>" + escape(src) + "</p>")
	}
	return strings.TrimSpace(string(policy.SanitizeBytes(buf.Bytes())))
}

func escape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")
	return r.Replace(s)
}
