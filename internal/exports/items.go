package exports

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/sets"
)

// exportService is the key of the data service exports use.
const exportService = "export"

// itemPath matches the item URLs an export takes: a layer or table
// (its published version), one version of it, or a set.
var itemPath = regexp.MustCompile(`/(layers|tables|sets)/([0-9]{1,18})/?(?:versions/([0-9]{1,18})/?)?$`)

// candidate is one dataset an item names, resolved as far as the caller
// may see it: the layer and version to export, or why it cannot be.
type candidate struct {
	url     string
	layer   *ent.Layer
	version *ent.LayerVersion
	reasons []string
}

// resolver resolves item URLs for one viewer.
type resolver struct {
	c *ent.Client
	v *access.Viewer
}

// resolve turns one item URL into the datasets it names: one for a layer,
// table or version, the members of a set's published version for a set.
func (r *resolver) resolve(ctx context.Context, raw string) ([]candidate, error) {
	u, err := url.Parse(raw)
	var m []string
	if err == nil {
		m = itemPath.FindStringSubmatch(u.Path)
	}
	if m == nil {
		return []candidate{{url: raw, reasons: []string{"not-found: not the URL of a layer, table, version or set"}}}, nil
	}
	id, _ := strconv.Atoi(m[2])
	if m[1] == "sets" {
		if m[3] != "" {
			return []candidate{{url: raw, reasons: []string{"not-found: give the set's URL, not one of its versions"}}}, nil
		}
		return r.set(ctx, raw, u, m[0], id)
	}
	vid := 0
	if m[3] != "" {
		vid, _ = strconv.Atoi(m[3])
	}
	c, err := r.layer(ctx, raw, id, vid)
	return []candidate{c}, err
}

// layer resolves a layer or table URL, or one of its versions.
func (r *resolver) layer(ctx context.Context, raw string, id, versionID int) (candidate, error) {
	out := candidate{url: raw}
	notFound := func(why string) (candidate, error) {
		out.reasons = []string{"not-found: " + why}
		return out, nil
	}
	l, err := r.c.Layer.Get(ctx, id)
	if ent.IsNotFound(err) {
		return notFound("no such layer or table")
	}
	if err != nil {
		return out, err
	}
	lv, err := r.v.Level(ctx, r.c, access.KindLayer, l.ID, l.GroupID)
	if err != nil {
		return out, err
	}
	if !access.Sees(lv, l.PublishedVersionID != nil) {
		return notFound("no such layer or table")
	}
	out.layer = l
	switch {
	case versionID == 0 && l.PublishedVersionID == nil:
		return notFound("the dataset has no published version")
	case versionID == 0:
		versionID = *l.PublishedVersionID
	case (l.PublishedVersionID == nil || versionID != *l.PublishedVersionID) && lv < access.Edit:
		// Other versions than the published one are for editors only.
		return notFound("no such version")
	}
	v, err := r.c.LayerVersion.Query().Where(layerversion.ID(versionID), layerversion.LayerID(l.ID),
		layerversion.StateNEQ(layerversion.StateDeleted)).Only(ctx)
	if ent.IsNotFound(err) {
		return notFound("no such version")
	}
	if err != nil {
		return out, err
	}
	out.version = v
	if lv < access.Download {
		out.reasons = append(out.reasons, "no-permission: you may view this dataset but not download it")
		return out, nil
	}
	if v.Status != layerversion.StatusOk {
		out.reasons = append(out.reasons, fmt.Sprintf("not-ready: the version's import is %s", v.Status))
	}
	o := access.LayerOwner(l)
	st, ok, err := access.LoadService(ctx, r.c, o, exportService)
	if err != nil {
		return out, err
	}
	switch {
	case !ok || !st.Enabled:
		out.reasons = append(out.reasons, "export-service-disabled: the export service of this dataset is turned off")
	default:
		may, err := r.v.MayUseServiceState(ctx, r.c, o, st)
		if err != nil {
			return out, err
		}
		if !may {
			out.reasons = append(out.reasons, "no-permission: the export service of this dataset is not open to you")
		}
	}
	return out, nil
}

// set resolves a set to its published members. Members the caller may
// see come back one by one (with their own reasons); those the caller may
// not see (never-published ones included, for all but their editors) are
// reported together on the set's URL, without their ids.
func (r *resolver) set(ctx context.Context, raw string, u *url.URL, tail string, id int) ([]candidate, error) {
	one := func(why string) []candidate { return []candidate{{url: raw, reasons: []string{why}}} }
	s, err := r.c.Set.Query().Where(set.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return one("not-found: no such set"), nil
	}
	if err != nil {
		return nil, err
	}
	lv, err := r.v.Level(ctx, r.c, access.KindSet, s.ID, s.GroupID)
	if err != nil {
		return nil, err
	}
	if !access.Sees(lv, s.PublishedVersionID != nil) {
		return one("not-found: no such set"), nil
	}
	members, ok, err := sets.Published(ctx, r.c, s.ID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return one("not-found: the set has no published version"), nil
	}
	if len(members) == 0 {
		return one("not-found: the set has no members"), nil
	}
	// A member's URL is the set's with /sets/{id}/ replaced.
	base := *u
	base.RawQuery, base.Fragment = "", ""
	prefix := base.String()
	prefix = prefix[:len(prefix)-len(tail)]
	var out []candidate
	hidden := 0
	for _, m := range members {
		kind := "layers"
		if m.Type == layer.TypeTable {
			kind = "tables"
		}
		c, err := r.layer(ctx, fmt.Sprintf("%s/%s/%d/", prefix, kind, m.ID), m.ID, 0)
		if err != nil {
			return nil, err
		}
		if c.layer == nil { // not visible to the caller
			hidden++
			continue
		}
		out = append(out, c)
	}
	if hidden > 0 {
		out = append(out, candidate{url: raw, reasons: []string{
			fmt.Sprintf("no-permission: %d member(s) of the set are not visible to you", hidden)}})
	}
	return out, nil
}

// kindOf is the export data kind of a layer.
func kindOf(l *ent.Layer) exportfile.Kind {
	switch {
	case l.Type == layer.TypeTable:
		return exportfile.KindTable
	case l.Kind == layer.KindGrid:
		return exportfile.KindGrid
	case l.Kind == layer.KindRaster:
		return exportfile.KindRaster
	}
	return exportfile.KindVector
}
