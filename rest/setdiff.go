package rest

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/versiondiff"
)

// The diffs of a set's and of a catalog item's versions (the kart-diff
// service; the rules of the layer diff, rest/diffs.go):
//
//	GET /sets/{id}/diff/?from={version}&to={version}&format=json|counts
//	GET /items/{cid}/diff/?from={version}&to={version}
//
// A set's diff is per member: its metadata fields, members added and
// removed, and a page of the members whose layer version changed, each
// with its layer diff's counts and a link to that diff; counts answers
// the numbers of members alone. An item's diff is its metadata fields.

// setDiffJSON is a set's diff.
type setDiffJSON struct {
	From    *diffVersionJSON           `json:"from"`
	To      *diffVersionJSON           `json:"to"`
	Fields  []*versiondiff.FieldChange `json:"fields,omitempty"`
	Members *setDiffMembersJSON        `json:"members,omitempty"`
	Counts  graph.SetDiffCounts        `json:"counts"`
	Links   []linkJSON                 `json:"links,omitempty"`
}

type setDiffMembersJSON struct {
	Added   []setMemberJSON       `json:"added"`
	Removed []setMemberJSON       `json:"removed"`
	Changed []setMemberChangeJSON `json:"changed"`
}

// setMemberJSON is a member added or removed and the layer version it
// stood for (null: none published then).
type setMemberJSON struct {
	Layer   diffVersionJSON  `json:"layer"`
	Version *diffVersionJSON `json:"version"`
}

// setMemberChangeJSON is a member whose layer version changed; counts,
// schema and matched_by are null when the caller may not read the
// member's own diff, diff_url when either version is none.
type setMemberChangeJSON struct {
	Layer       diffVersionJSON           `json:"layer"`
	FromVersion *diffVersionJSON          `json:"from_version"`
	ToVersion   *diffVersionJSON          `json:"to_version"`
	Counts      *versiondiff.Counts       `json:"counts"`
	Schema      *versiondiff.SchemaChange `json:"schema"`
	MatchedBy   []string                  `json:"matched_by"`
	DiffURL     *string                   `json:"diff_url"`
}

// itemDiffJSON is a catalog item's diff.
type itemDiffJSON struct {
	From   *diffVersionJSON           `json:"from"`
	To     *diffVersionJSON           `json:"to"`
	Fields []*versiondiff.FieldChange `json:"fields"`
}

// Set diff formats.
const (
	setDiffJSONFormat = "json"
	setDiffCounts     = "counts"
)

func (a *API) setDiff(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "sid")
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
	format, err := formatOf(r, []string{setDiffJSONFormat, setDiffCounts},
		map[string]string{"application/json": setDiffJSONFormat, "*/*": setDiffJSONFormat}, setDiffJSONFormat)
	if err != nil {
		return err
	}
	size := graph.DefaultSetDiffPage
	if n, err := q.intPtr("page_size"); err != nil {
		return err
	} else if n != nil {
		if *n < 1 || *n > graph.MaxSetDiffPage {
			return apperr.Field("page_size", fmt.Sprintf("Give a page size from 1 to %d.", graph.MaxSetDiffPage))
		}
		size = *n
	}
	start := 0
	if s := q.v.Get("cursor"); s != "" {
		var ok bool
		if start, ok = graph.ParseSetDiffCursor(s); !ok {
			return apperr.Field("cursor", "Not a cursor of this diff.")
		}
	}
	if format == setDiffCounts {
		size = 0
	}
	d, err := a.res.SetDiffOf(r.Context(), id, from, to, start, size)
	if err != nil {
		return err
	}
	l := a.links(r)
	setVersion := func(v *ent.SetVersion) *diffVersionJSON {
		if v == nil {
			return nil
		}
		return &diffVersionJSON{ID: v.ID, URL: l.api("sets/%d/versions/%d/", d.Set.ID, v.ID)}
	}
	body := setDiffJSON{From: setVersion(d.From), To: setVersion(d.To), Counts: *d.Counts}
	if format == setDiffCounts {
		writeJSON(w, http.StatusOK, body)
		return nil
	}
	body.Fields = d.Fields
	if body.Fields == nil {
		body.Fields = []*versiondiff.FieldChange{}
	}
	body.Members = &setDiffMembersJSON{Added: setMembersJSON(l, d.Added), Removed: setMembersJSON(l, d.Removed),
		Changed: make([]setMemberChangeJSON, len(d.Changed))}
	for i, c := range d.Changed {
		body.Members.Changed[i] = setMemberChangeJSON{Layer: setMemberRef(l, c.Layer), FromVersion: layerVersionRef(l, c.Layer, c.FromVersion),
			ToVersion: layerVersionRef(l, c.Layer, c.ToVersion), Schema: c.SchemaDiff, MatchedBy: c.MatchedBy}
		if c.Counts != nil {
			body.Members.Changed[i].Counts = &versiondiff.Counts{Inserts: int64(c.Counts.Inserts), Updates: int64(c.Counts.Updates),
				Deletes: int64(c.Counts.Deletes)}
		}
		if c.FromVersion != nil && c.ToVersion != nil {
			u := l.api("%s/%d/diff/", kindPath(c.Layer), c.Layer.ID) + fmt.Sprintf("?from=%d&to=%d", c.FromVersion.ID, c.ToVersion.ID)
			body.Members.Changed[i].DiffURL = &u
		}
	}
	if d.HasNextPage {
		qs := url.Values{}
		for _, k := range []string{"from", "to", "page_size"} {
			if v := r.URL.Query().Get(k); v != "" {
				qs.Set(k, v)
			}
		}
		qs.Set("cursor", *d.EndCursor)
		next := l.api("sets/%d/diff/", d.Set.ID) + "?" + qs.Encode()
		body.Links = []linkJSON{{Rel: "next", Href: next, Type: "application/json"}}
		w.Header().Set("Link", "<"+next+`>; rel="page-next"`)
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

func (a *API) itemDiff(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	from, err := q.intPtr("from")
	if err != nil {
		return err
	}
	to, err := q.intPtr("to")
	if err != nil {
		return err
	}
	d, err := a.res.CatalogItemDiffOf(r.Context(), chi.URLParam(r, "cid"), from, to)
	if err != nil {
		return err
	}
	l := a.links(r)
	ref := func(v *ent.CatalogItemVersion) *diffVersionJSON {
		if v == nil {
			return nil
		}
		return &diffVersionJSON{ID: v.ID, URL: l.api("items/%s/versions/%d/", graph.ItemPublicID(d.Item.ID), v.ID)}
	}
	body := itemDiffJSON{From: ref(d.From), To: ref(d.To), Fields: d.Fields}
	if body.Fields == nil {
		body.Fields = []*versiondiff.FieldChange{}
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

func setMembersJSON(l links, ms []*graph.SetMember) []setMemberJSON {
	out := make([]setMemberJSON, len(ms))
	for i, m := range ms {
		out[i] = setMemberJSON{Layer: setMemberRef(l, m.Layer), Version: layerVersionRef(l, m.Layer, m.Version)}
	}
	return out
}

// setMemberRef names a member layer or table by id and URL.
func setMemberRef(l links, lyr *ent.Layer) diffVersionJSON {
	return diffVersionJSON{ID: lyr.ID, URL: l.api("%s/%d/", kindPath(lyr), lyr.ID)}
}

// layerVersionRef names a version of a member, nil for none.
func layerVersionRef(l links, lyr *ent.Layer, v *ent.LayerVersion) *diffVersionJSON {
	if v == nil {
		return nil
	}
	return &diffVersionJSON{ID: v.ID, URL: l.api("%s/%d/versions/%d/", kindPath(lyr), lyr.ID, v.ID)}
}
