// Package sitemap lists the public pages of the catalogue for search
// engines, by the sitemap protocol (sitemaps.org, issue 27 point 3).
//
// The rules it implements:
//
//   - Only what an anonymous visitor may see: the catalogue is paged
//     through the search index as an anonymous viewer (internal/search
//     applies the permission rule), published versions only. A private
//     dataset, a never-published one and a draft are absent, and sources
//     (whose pages are for administrators) are never listed.
//   - The pages listed are the site's front page and the url_html pages
//     of layers, tables, sets, documents and catalog items
//     (/layers/12/, /items/c3/), each with its lastmod: when the
//     published version last changed (the doc's UpdatedAt).
//   - A sitemap file holds at most MaxURLs URLs (the protocol's cap).
//     When the pages exceed one file, /sitemap.xml is a sitemap index
//     naming /sitemap-1.xml ... /sitemap-N.xml; a number past the last
//     file names nothing.
//   - Files are stable: the datasets are ordered oldest first (created
//     date, then the index id), so file N holds the same datasets between
//     two requests when nothing changed, and a new dataset lands in the
//     last file rather than shifting every file.
//   - Paging is by keyset (search cursors), never by offset: reaching
//     file N walks the pages before it, each costing what the first does.
package sitemap
