// Package searchgen generates realistic catalogue docs and their grants
// from word lists, deterministically from a seed: the data of the search
// tests and benchmarks (go test -bench in internal/search, bench/search).
package searchgen

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/search"
)

var (
	places = []string{"Auckland", "Wellington", "Canterbury", "Otago", "Waikato", "Northland", "Taranaki", "Southland",
		"Nelson", "Tasman", "Gisborne", "Marlborough", "Westland", "Hawke's Bay", "Manawatu", "Bay of Plenty"}
	subjects = []string{"Roads", "Rivers", "Parcels", "Buildings", "Contours", "Coastline", "Lakes", "Railways", "Bridges",
		"Wetlands", "Forests", "Soil", "Geology", "Flood Zones", "Elevation", "Aerial Imagery", "Land Cover", "Addresses",
		"Schools", "Hospitals", "Parks", "Tracks", "Census Areas", "Bathymetry", "Wind Zones", "Rainfall", "Vineyards",
		"Earthquake Faults", "Heritage Sites", "Bus Stops"}
	qualifiers = []string{"Centrelines", "Boundaries", "Points", "Polygons", "Outlines", "Extent", "Index", "Network",
		"Catchments", "Survey", "Model", "Grid", "Historic", "Current", "Draft", "Annual"}
	fillers = []string{"This dataset contains", "Compiled from", "Maintained by", "Derived from field survey of",
		"Updated monthly with", "Captured at high resolution showing", "An authoritative record of", "Digitised from",
		"Provides coverage of", "Suitable for analysis of"}
	nouns = []string{"roads", "river", "parcel", "building", "contour", "coast", "lake", "railway", "bridge", "wetland",
		"forest", "soil", "rock", "flood", "height", "photo", "cover", "address", "school", "hospital", "park", "track",
		"population", "depth", "wind", "rain", "vine", "fault", "heritage", "transport", "water", "land", "boundary"}
	tags = []string{"transport", "hydrology", "cadastre", "topography", "imagery", "environment", "infrastructure",
		"health", "education", "hazards", "census", "marine", "agriculture", "heritage", "utilities", "planning",
		"climate", "ecology", "geology", "tourism"}
	categories = []string{"transport/roads", "transport/rail", "water/rivers", "water/coast", "land/parcels",
		"land/cover", "hazards/flood", "hazards/earthquake", "society/health", "society/education", "imagery/aerial"}
	licenses = [][2]string{{"cc-by", "4.0"}, {"cc-by", "3.0"}, {"cc-by-sa", "4.0"}, {"cc-by-nc", "4.0"},
		{"cc-by-nd", "3.0"}, {"cc-by-nc-sa", "4.0"}, {"public-domain", ""}, {"", ""}}
	kinds  = []string{"vector", "vector", "vector", "vector", "raster", "raster", "grid", "table", "table", "set", "document"}
	geoms  = []string{"point", "linestring", "polygon"}
	fields = []string{"name", "id", "road_name", "surface", "width", "lanes", "owner", "area", "height", "status",
		"material", "year_built", "capacity", "category", "source", "accuracy", "elevation", "depth"}
	bands = [][]string{{"red", "green", "blue"}, {"gray"}, {"red", "green", "blue", "alpha"}}
)

// Grant is one dataset_permissions row to create.
type Grant struct {
	PermKind   string
	PermID     int
	Subject    string // everyone, user, group, administrators
	SubjectID  int
	Permission string // view, download, edit, admin
}

// Options shape the generated catalogue.
type Options struct {
	N    int
	Seed uint64
	// GroupIDs own the datasets (GroupNames name them); a doc without a
	// group is owned by one of UserIDs.
	GroupIDs   []int
	GroupNames []string
	UserIDs    []int
	// PrivateShare is the share of docs without an everyone grant.
	PrivateShare float64
	// FirstID numbers the datasets from this id.
	FirstID int
}

// Generate returns n published docs and their grants.
func Generate(o Options) ([]search.Doc, []Grant) {
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	base := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := make([]search.Doc, 0, o.N)
	var grants []Grant
	first := max(o.FirstID, 1)
	for i := 0; i < o.N; i++ {
		id := first + i
		kind := pick(kinds)
		typ := search.TypeLayer
		permKind := "layer"
		switch kind {
		case "table":
			typ = search.TypeTable
		case "set":
			typ, permKind = search.TypeSet, "set"
		case "document":
			typ, permKind = search.TypeDocument, "document"
		}
		place, subject := pick(places), pick(subjects)
		title := fmt.Sprintf("%s %s %s", place, subject, pick(qualifiers))
		var desc []string
		for s := 0; s < 2+r.IntN(3); s++ {
			desc = append(desc, fmt.Sprintf("%s %s %s and %s in %s.", pick(fillers), pick(nouns), pick(nouns), pick(nouns), pick(places)))
		}
		created := base.Add(time.Duration(r.Int64N(int64(10 * 365 * 24 * time.Hour)))).Truncate(time.Second)
		updated := created.Add(time.Duration(r.Int64N(int64(300 * 24 * time.Hour)))).Truncate(time.Second)
		lic := licenses[r.IntN(len(licenses))]
		d := search.Doc{
			Ref:  search.Ref{Type: typ, ID: id, State: search.Published},
			Kind: kind, Title: title, Description: strings.Join(desc, " "),
			LicenseType: lic[0], LicenseVersion: lic[1],
			CreatedAt: created, UpdatedAt: updated, FirstPublishedAt: &created,
			Popularity: int64(r.ExpFloat64() * 500),
			PermKind:   permKind, PermID: id,
		}
		for t := 0; t < 1+r.IntN(4); t++ {
			d.Tags = append(d.Tags, pick(tags))
		}
		if r.IntN(4) > 0 {
			d.Categories = []search.KeyName{{Key: pick(categories)}}
			d.Categories[0].Name = strings.ToUpper(d.Categories[0].Key[:1]) + d.Categories[0].Key[1:]
		}
		d.Geotags = []search.KeyName{{Key: strings.ToLower(strings.NewReplacer(" ", "-", "'", "").Replace(place)), Name: place}}
		if len(o.GroupIDs) > 0 && r.IntN(5) > 0 {
			g := r.IntN(len(o.GroupIDs))
			d.GroupID = o.GroupIDs[g]
			if g < len(o.GroupNames) {
				d.GroupName = o.GroupNames[g]
			}
		}
		if len(o.UserIDs) > 0 {
			d.UserID = o.UserIDs[r.IntN(len(o.UserIDs))]
			d.UserName = fmt.Sprintf("Publisher %d", d.UserID)
		}
		switch kind {
		case "vector":
			d.GeometryType = pick(geoms)
			d.HasZ = r.IntN(5) == 0
			d.HasPK = r.IntN(2) == 0
			d.FieldNames = []string{pick(fields), pick(fields), pick(fields)}
		case "table":
			d.HasPK = r.IntN(2) == 0
			d.FieldNames = []string{pick(fields), pick(fields)}
		case "raster", "grid":
			res := []float64{0.075, 0.1, 0.3, 1, 8, 25}[r.IntN(6)]
			d.RasterResolution = &res
			imagery := kind == "raster" && r.IntN(2) == 0
			d.IsImagery = &imagery
			d.RasterBands = bands[r.IntN(len(bands))]
		case "set":
			d.MemberTitles = []string{pick(places) + " " + pick(subjects), pick(places) + " " + pick(subjects)}
		}
		docs = append(docs, d)
		if r.Float64() >= o.PrivateShare {
			grants = append(grants, Grant{PermKind: permKind, PermID: id, Subject: "everyone", Permission: "download"})
		}
		if d.UserID != 0 {
			grants = append(grants, Grant{PermKind: permKind, PermID: id, Subject: "user", SubjectID: d.UserID, Permission: "admin"})
		}
	}
	return docs, grants
}

// InsertGrants writes grants into dataset_permissions in tx; pg selects
// PostgreSQL placeholders.
func InsertGrants(ctx context.Context, tx *sql.Tx, pg bool, grants []Grant) error {
	now := time.Now().UTC()
	const per = 200
	for start := 0; start < len(grants); start += per {
		chunk := grants[start:min(start+per, len(grants))]
		var vals []string
		var args []any
		for _, g := range chunk {
			n := len(args)
			if pg {
				vals = append(vals, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6, n+7))
			} else {
				vals = append(vals, "(?, ?, ?, ?, ?, ?, ?)")
			}
			args = append(args, now, now, g.PermKind, g.PermID, g.Subject, g.SubjectID, g.Permission)
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO dataset_permissions (created_at, updated_at, dataset_kind, dataset_id, subject, subject_id, permission) VALUES "+
			strings.Join(vals, ", "), args...)
		if err != nil {
			return fmt.Errorf("inserting grants: %w", err)
		}
	}
	return nil
}

// NamedQuery is one query of the benchmark mix and its class.
type NamedQuery struct {
	Class string
	Query search.Query
}

// Mix returns the benchmark's mixed query set for viewer v (nil is
// anonymous): one-word and three-word text, filters, facets with and
// without text, and the first page of the deep-page queries (the deep
// page itself is reached with a cursor by the caller).
func Mix(seed uint64, n int, groupIDs []int) []NamedQuery {
	r := rand.New(rand.NewPCG(seed, seed+1))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	var out []NamedQuery
	for i := 0; i < n; i++ {
		switch i % 6 {
		case 0:
			out = append(out, NamedQuery{"one-word", search.Query{Q: pick(nouns), Limit: 20}})
		case 1:
			out = append(out, NamedQuery{"three-word", search.Query{Q: pick(nouns) + " " + strings.ToLower(pick(places)) + " " + pick(nouns)[:3], Limit: 20}})
		case 2:
			q := search.Query{Kinds: []string{pick(kinds)}, Tags: []string{pick(tags)}, LicenseTypes: []string{"-cc-by-nc"}, Limit: 20, Sort: search.SortPopularity}
			if len(groupIDs) > 0 && r.IntN(2) == 0 {
				q.GroupIDs = []int{groupIDs[r.IntN(len(groupIDs))]}
			}
			out = append(out, NamedQuery{"filters", q})
		case 3:
			out = append(out, NamedQuery{"facets+text", search.Query{Q: pick(nouns) + " " + pick(nouns), Limit: 20, Facets: true}})
		case 4:
			out = append(out, NamedQuery{"facets+filter", search.Query{Categories: []string{strings.Split(pick(categories), "/")[0]}, Limit: 20, Facets: true}})
		case 5:
			out = append(out, NamedQuery{"facets-all", search.Query{Limit: 20, Facets: true}})
		}
	}
	return out
}

// Word returns a word of the generator's vocabulary, for reindex tests.
func Word(i int) string { return nouns[i%len(nouns)] }
