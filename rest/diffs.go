package rest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/versiondiff"
)

// The diff of a layer's or table's versions (the kart-diff service):
//
//	GET /layers/{id}/diff/?from={version}&to={version}&format=geojson|jsonl|counts
//
// geojson (the default, or Accept: application/geo+json) is a page of
// changes as Kart writes a diff as GeoJSON (features I::key, D::key,
// U-::key and U+::key), page_size changes at a time (at most 1000) with
// the next page's URL in the Link header (rel="page-next") and in links;
// jsonl (or Accept: application/x-ndjson) streams every change as a JSON
// line after a header line and before a counts line; counts answers the
// counts alone. cursor resumes after a change in every format.

// Diff formats.
const (
	diffGeoJSON = "geojson"
	diffJSONL   = "jsonl"
	diffCounts  = "counts"
)

// diffInfo is what every format says of the diff as a whole.
type diffInfo struct {
	From      *diffVersionJSON `json:"from"`
	To        *diffVersionJSON `json:"to"`
	MatchedBy []string         `json:"matched_by"`
	// KeyUnstable says features were matched by FID, a shapefile's
	// record numbers, which a rewrite of the file renumbers.
	KeyUnstable bool                     `json:"key_unstable"`
	Schema      versiondiff.SchemaChange `json:"schema"`
}

// matched says which key the diff matched features by.
func (d *diffInfo) matched(key []string) {
	d.MatchedBy = nonNilStrings(versiondiff.KeyNames(key))
	d.KeyUnstable = versiondiff.Unstable(key)
}

// diffVersionJSON names a version of the diff.
type diffVersionJSON struct {
	ID  int    `json:"id"`
	URL string `json:"url"`
}

func (a *API) layerDiff(typ layer.Type) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "lid")
		if err != nil {
			return err
		}
		q := queryOf(r)
		from, err := q.intPtr("from")
		if err != nil {
			return err
		}
		to, err := q.intPtr("to")
		if err != nil {
			return err
		}
		format, err := diffFormat(r)
		if err != nil {
			return err
		}
		size := graph.DefaultDiffPage
		if n, err := q.intPtr("page_size"); err != nil {
			return err
		} else if n != nil {
			if *n < 1 || *n > graph.MaxDiffPage {
				return apperr.Field("page_size", fmt.Sprintf("Give a page size from 1 to %d.", graph.MaxDiffPage))
			}
			size = *n
		}
		var cursor *versiondiff.Cursor
		if s := q.v.Get("cursor"); s != "" {
			if cursor, err = versiondiff.ParseCursor(s); err != nil {
				return apperr.Field("cursor", "Not a cursor of this diff.")
			}
		}
		p, err := a.res.LayerDiffPlan(r.Context(), &typ, id, from, to)
		if err != nil {
			return err
		}
		info := a.diffInfo(r, p)
		switch format {
		case diffCounts:
			d, err := versiondiff.Compare(r.Context(), a.res.Store, p.A, p.B, versiondiff.Options{After: cursor, CountOnly: true}, nil)
			if err != nil {
				return err
			}
			info.matched(d.MatchedBy)
			writeJSON(w, http.StatusOK, diffCountsJSON{info, d.Counts})
			return nil
		case diffJSONL:
			return a.streamDiff(w, r, p, info, cursor)
		}
		page, more, d, err := a.res.DiffPage(r.Context(), p, cursor, size)
		if err != nil {
			return err
		}
		info.matched(d.MatchedBy)
		features := []*versiondiff.Feature{}
		for _, c := range page {
			fs, err := c.GeoJSONFeatures()
			if err != nil {
				return err
			}
			features = append(features, fs...)
		}
		body := diffPageJSON{Type: "FeatureCollection", Features: features, Diff: info, Links: []linkJSON{}}
		if more {
			next := nextDiffURL(r, a.links(r), p.Layer, page[len(page)-1].Cursor)
			body.Links = append(body.Links, linkJSON{Rel: "next", Href: next, Type: "application/geo+json"})
			w.Header().Set("Link", "<"+next+`>; rel="page-next"`)
		}
		w.Header().Set("Content-Type", "application/geo+json")
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(body)
	}
}

// diffPageJSON is a page of a diff as GeoJSON.
type diffPageJSON struct {
	Type     string                 `json:"type"`
	Features []*versiondiff.Feature `json:"features"`
	Diff     diffInfo               `json:"diff"`
	Links    []linkJSON             `json:"links"`
}

// diffCountsJSON is a diff's counts.
type diffCountsJSON struct {
	diffInfo
	Counts versiondiff.Counts `json:"counts"`
}

// linkJSON is a link of a GeoJSON answer's links.
type linkJSON struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
	Type string `json:"type"`
}

// streamDiff writes the whole diff (after cursor) as JSON lines: a line
// of type "diff" (versions, key, schema), one of type "feature" per
// change and a last one of type "counts". An error after the first line
// ends the stream with a line of type "error".
func (a *API) streamDiff(w http.ResponseWriter, r *http.Request, p *graph.DiffPlan, info diffInfo, cursor *versiondiff.Cursor) error {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	started := false
	start := func(matchedBy []string) error {
		if started {
			return nil
		}
		started = true
		info.matched(matchedBy)
		w.WriteHeader(http.StatusOK)
		return enc.Encode(struct {
			Type string `json:"type"`
			diffInfo
		}{"diff", info})
	}
	keyFields := versiondiff.MatchKey(p.A, p.B)
	d, err := versiondiff.Compare(r.Context(), a.res.Store, p.A, p.B, versiondiff.Options{After: cursor}, func(c versiondiff.Change) error {
		if err := start(keyFields); err != nil {
			return err
		}
		line, err := c.JSON(keyFields)
		if err != nil {
			return err
		}
		return enc.Encode(line)
	})
	if err != nil {
		if !started {
			return err
		}
		a.logger.ErrorContext(r.Context(), "diff stream failed", "path", r.URL.Path, "err", err)
		_ = enc.Encode(map[string]string{"type": "error", "detail": "The diff stopped: " + apperr.As(err).Message})
		return bw.Flush()
	}
	if err := start(d.MatchedBy); err != nil {
		return err
	}
	if err := enc.Encode(struct {
		Type string `json:"type"`
		versiondiff.Counts
	}{"counts", d.Counts}); err != nil {
		return err
	}
	return bw.Flush()
}

// diffFormat is the format parameter, else the one Accept prefers.
func diffFormat(r *http.Request) (string, error) {
	return formatOf(r, []string{diffGeoJSON, diffJSONL, diffCounts}, map[string]string{
		"application/x-ndjson": diffJSONL, "application/jsonl": diffJSONL, "application/jsonlines": diffJSONL,
		"application/geo+json": diffGeoJSON, "application/json": diffGeoJSON, "*/*": diffGeoJSON,
	}, diffGeoJSON)
}

func (a *API) diffInfo(r *http.Request, p *graph.DiffPlan) diffInfo {
	l := a.links(r)
	base := kindPath(p.Layer)
	ref := func(v *ent.LayerVersion) *diffVersionJSON {
		if v == nil {
			return nil
		}
		return &diffVersionJSON{ID: v.ID, URL: l.api("%s/%d/versions/%d/", base, p.Layer.ID, v.ID)}
	}
	return diffInfo{From: ref(p.From), To: ref(p.To)}
}

// nextDiffURL is the request's URL with the cursor of the page's last
// change.
func nextDiffURL(r *http.Request, l links, lyr *ent.Layer, c versiondiff.Cursor) string {
	q := url.Values{}
	for _, k := range []string{"from", "to", "format", "page_size"} {
		if v := r.URL.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	q.Set("cursor", c.String())
	return l.api("%s/%d/diff/", kindPath(lyr), lyr.ID) + "?" + q.Encode()
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
