package sets

import (
	"context"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/versiondiff"
)

// Member is a member of a set version and the layer version it stands
// for there (Until); Version is nil when none of the member's versions
// was published by then.
type Member struct {
	Layer   *ent.Layer
	Version *ent.LayerVersion
}

// MemberChange is a member of both set versions a diff compares whose
// layer version differs between them (From nil: none was published for
// the older set version).
type MemberChange struct {
	Layer    *ent.Layer
	From, To *ent.LayerVersion
}

// Count counts the member's feature changes from its older layer version
// to its newer, with its schema changes (versiondiff.Count).
func (m MemberChange) Count(ctx context.Context, st *store.Store) (versiondiff.Diff, error) {
	return versiondiff.Count(ctx, st, versiondiff.VersionOf(m.From), versiondiff.VersionOf(m.To))
}

// Diff is what changed from one set version to another: its own metadata
// fields, the members added (in the newer version's order), removed (in
// the older's) and kept with another layer version (in the newer's), and
// how many were kept in all.
type Diff struct {
	Fields         []versiondiff.FieldChange
	Added, Removed []Member
	Changed        []MemberChange
	Kept           int
}

// Until is the moment up to which set version v stands for its members'
// layer versions: the publication of the next version of its set
// published after it. ok is false when there is none (v is the set's
// current published version, a draft or a discarded draft): v then stands
// for each member's current published version.
//
// A set version names its member layers, not their versions (a member
// follows its layer's publishes), so which layer versions it showed is
// rebuilt from publication times: while v was current, readers saw each
// member's published version, and the one published last strictly before
// the next set version's publication is the one v showed last. Strictly:
// a member layer published together with the next set version (one
// publish, one moment) is that version's. So a member published on its
// own between two set versions counts in the older set version's state
// (docs/decisions.md).
func Until(ctx context.Context, c *ent.Client, v *ent.SetVersion) (time.Time, bool, error) {
	if v.PublishedAt == nil {
		return time.Time{}, false, nil
	}
	next, err := c.SetVersion.Query().Where(setversion.SetID(v.SetID), setversion.IDNEQ(v.ID),
		setversion.StateIn(setversion.StatePublished, setversion.StateSuperseded),
		setversion.PublishedAtGT(*v.PublishedAt)).
		Order(setversion.ByPublishedAt(), setversion.ByID()).First(ctx)
	if ent.IsNotFound(err) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return *next.PublishedAt, true, nil
}

// MemberVersions returns the members of set version v matching visible,
// in order, each with the layer version v stands for (Until).
func MemberVersions(ctx context.Context, c *ent.Client, v *ent.SetVersion, visible ...predicate.Layer) ([]Member, error) {
	m, err := Members(ctx, c, []int{v.ID}, visible...)
	if err != nil {
		return nil, err
	}
	layers := m[v.ID]
	until, bounded, err := Until(ctx, c, v)
	if err != nil || len(layers) == 0 {
		return nil, err
	}
	ids := make([]int, len(layers))
	for i, l := range layers {
		ids[i] = l.ID
	}
	q := c.LayerVersion.Query()
	if bounded {
		q.Where(layerversion.LayerIDIn(ids...), layerversion.StateIn(layerversion.StatePublished, layerversion.StateSuperseded),
			layerversion.PublishedAtLT(until))
	} else {
		var pub []int
		for _, l := range layers {
			if l.PublishedVersionID != nil {
				pub = append(pub, *l.PublishedVersionID)
			}
		}
		q.Where(layerversion.IDIn(pub...))
	}
	vs, err := q.Order(layerversion.ByPublishedAt(), layerversion.ByID()).All(ctx)
	if err != nil {
		return nil, err
	}
	// Oldest first: the last one seen of a layer is the latest.
	latest := make(map[int]*ent.LayerVersion, len(layers))
	for _, lv := range vs {
		latest[lv.LayerID] = lv
	}
	out := make([]Member, len(layers))
	for i, l := range layers {
		out[i] = Member{Layer: l, Version: latest[l.ID]}
	}
	return out, nil
}

// CompareVersions compares set version from (nil: nothing, so every
// member is added) with set version to, members matching visible only.
func CompareVersions(ctx context.Context, c *ent.Client, from, to *ent.SetVersion, visible ...predicate.Layer) (Diff, error) {
	var d Diff
	var old []Member
	var err error
	if from != nil {
		if old, err = MemberVersions(ctx, c, from, visible...); err != nil {
			return d, err
		}
	}
	now, err := MemberVersions(ctx, c, to, visible...)
	if err != nil {
		return d, err
	}
	before := make(map[int]Member, len(old))
	for _, m := range old {
		before[m.Layer.ID] = m
	}
	kept := make(map[int]bool, len(now))
	for _, m := range now {
		o, ok := before[m.Layer.ID]
		switch {
		case !ok:
			d.Added = append(d.Added, m)
			continue
		case versionID(o.Version) != versionID(m.Version):
			d.Changed = append(d.Changed, MemberChange{Layer: m.Layer, From: o.Version, To: m.Version})
		}
		kept[m.Layer.ID] = true
		d.Kept++
	}
	for _, m := range old {
		if !kept[m.Layer.ID] {
			d.Removed = append(d.Removed, m)
		}
	}
	if d.Fields, err = versiondiff.CompareMetadata(ctx, c, metadata.KindSet, from, to, func(v *ent.SetVersion) int { return v.ID }, fields); err != nil {
		return d, err
	}
	return d, nil
}

// fields are a set version's own fields as a diff compares them (its
// metadata document's follow, versiondiff.CompareMetadata).
func fields(v *ent.SetVersion) []versiondiff.Field {
	return []versiondiff.Field{{Name: "title", Value: v.Title}, {Name: "description", Value: v.Description},
		{Name: "tags", Value: v.Tags}, {Name: "categories", Value: v.Categories}, {Name: "license", Value: v.LicenseID}}
}

func versionID(v *ent.LayerVersion) int {
	if v == nil {
		return 0
	}
	return v.ID
}
