package graph

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/sets"
	"github.com/geopub/geopub/internal/versiondiff"
)

// MaxSetDiffPage bounds the changed members of a set diff whose feature
// changes are counted at once (each a diff of the member's two layer
// versions); DefaultSetDiffPage is a page's size when the caller names
// none. A set has at most sets.MaxItems members.
const (
	MaxSetDiffPage     = 100
	DefaultSetDiffPage = 20
)

// SetDiff is what changed from one version of a set to another (the
// kart-diff service, "for a set, per member"): the set's own metadata
// fields, its members added and removed (all of them: references only),
// and a page of the members kept whose layer version changed, each with
// its feature counts.
type SetDiff struct {
	Set            *ent.Set
	From           *ent.SetVersion
	To             *ent.SetVersion
	Fields         []*versiondiff.FieldChange
	Added, Removed []*SetMember
	// Changed is the page of changed members after the cursor.
	Changed []*SetMemberChange
	Counts  *SetDiffCounts
	// EndCursor resumes after the page (nil when it is empty);
	// HasNextPage says more changed members follow.
	EndCursor   *string
	HasNextPage bool
}

// SetMember is a member of a set version and the layer version it stands
// for there (nil when none of its versions was published by then).
type SetMember struct {
	Layer   *ent.Layer
	Version *ent.LayerVersion
}

// SetMemberChange is a member whose layer version changed between the two
// set versions, with the counts and schema changes of its layer diff
// (Schema as GraphQL answers it, SchemaDiff as REST does). Counts, the
// schemas and MatchedBy are nil when the caller may not read the member's
// own diff (its kart-diff service).
type SetMemberChange struct {
	Layer       *ent.Layer
	FromVersion *ent.LayerVersion
	ToVersion   *ent.LayerVersion
	Counts      *DiffCounts
	Schema      *SchemaChange
	SchemaDiff  *versiondiff.SchemaChange
	MatchedBy   []string
}

// SetDiffOf compares two versions of set setID for the caller (to, else
// the published version; from, else the one published before it),
// counting the feature changes of up to n changed members from index
// start (a page's EndCursor is the next page's start). Only the members
// the caller may see are compared, as the set's member lists show them.
func (r *Resolver) SetDiffOf(ctx context.Context, setID int, from, to *int, start, n int) (*SetDiff, error) {
	s, err := r.loadSet(ctx, setID, false)
	if err != nil {
		return nil, err
	}
	if err := r.requireService(ctx, access.SetOwner(s), DiffServiceKey); err != nil {
		return nil, err
	}
	a, b, err := r.setKind().diffVersions(ctx, s, from, to)
	if err != nil {
		return nil, err
	}
	visible, err := layerVisible(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	d, err := sets.CompareVersions(ctx, r.Client, a, b, visible)
	if err != nil {
		return nil, err
	}
	out := &SetDiff{Set: s, From: a, To: b, Fields: fieldChanges(d.Fields), Added: setMembers(d.Added), Removed: setMembers(d.Removed),
		Counts: &SetDiffCounts{Added: len(d.Added), Removed: len(d.Removed), Changed: len(d.Changed)}, Changed: []*SetMemberChange{}}
	start = min(start, len(d.Changed))
	end := min(start+n, len(d.Changed))
	for i := start; i < end; i++ {
		c, err := r.setMemberChange(ctx, d.Changed[i])
		if err != nil {
			return nil, err
		}
		out.Changed = append(out.Changed, c)
	}
	if end > start {
		cur := strconv.Itoa(end)
		out.EndCursor = &cur
	}
	out.HasNextPage = end < len(d.Changed)
	return out, nil
}

// setMemberChange counts a changed member's feature changes, if the
// caller may read the member's own diff.
func (r *Resolver) setMemberChange(ctx context.Context, m sets.MemberChange) (*SetMemberChange, error) {
	out := &SetMemberChange{Layer: m.Layer, FromVersion: m.From, ToVersion: m.To}
	if err := r.requireService(ctx, access.LayerOwner(m.Layer), DiffServiceKey); err != nil {
		if c := apperr.CodeOf(err); c == apperr.Unauthenticated || c == apperr.PermissionDenied {
			return out, nil
		}
		return nil, err
	}
	d, err := m.Count(ctx, r.Store)
	if err != nil {
		return nil, err
	}
	out.Counts = &DiffCounts{Inserts: int(d.Counts.Inserts), Updates: int(d.Counts.Updates), Deletes: int(d.Counts.Deletes)}
	out.Schema, out.SchemaDiff, out.MatchedBy = schemaChange(d.Schema), &d.Schema, nonNilStrings(d.MatchedBy)
	return out, nil
}

// ParseSetDiffCursor reads a set diff's cursor (an EndCursor): the index
// of the next changed member.
func ParseSetDiffCursor(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == s
}

func setMembers(ms []sets.Member) []*SetMember {
	out := make([]*SetMember, len(ms))
	for i, m := range ms {
		out[i] = &SetMember{Layer: m.Layer, Version: m.Version}
	}
	return out
}

func fieldChanges(fs []versiondiff.FieldChange) []*versiondiff.FieldChange {
	out := make([]*versiondiff.FieldChange, len(fs))
	for i := range fs {
		out[i] = &fs[i]
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
