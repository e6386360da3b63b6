package graph

import (
	"context"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/publishgroup"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/lifecycle"
	"github.com/geopub/geopub/internal/sets"
)

// setVisible narrows sets to those the caller may read: published ones
// they hold view on, and the ones they may edit. Every read of a set goes
// through it.
func setVisible(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Set, error) {
	return visibleTo[predicate.Set](ctx, c, p, access.KindSet)
}

// setEditable narrows sets to those p may edit (and whose drafts p may
// see), by the rules of every dataset. Every write of a set goes through
// it.
func setEditable(ctx context.Context, c *ent.Client, p auth.Principal) (predicate.Set, error) {
	return editableBy[predicate.Set](ctx, c, p, access.KindSet)
}

// loadSet returns a set the caller may read, else NOT_FOUND; with write,
// one they may edit, else FORBIDDEN.
func (r *Resolver) loadSet(ctx context.Context, id int, write bool) (*ent.Set, error) {
	return r.setKind().load(ctx, r.Client, id, write)
}

// loadSetVersion returns a version of a set the caller may see: published
// and superseded versions of visible sets; drafts and deleted drafts only
// for editors.
func (r *Resolver) loadSetVersion(ctx context.Context, setID, versionID int, write bool) (*ent.Set, *ent.SetVersion, error) {
	s, err := r.loadSet(ctx, setID, write)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.setKind().loadVersion(ctx, s, versionID, write)
	if err != nil {
		return nil, nil, err
	}
	return s, v, nil
}

// canEditSet reports whether the caller may edit s (batched over the sets
// a list returned).
func (r *Resolver) canEditSet(ctx context.Context, s *ent.Set) (bool, error) {
	return loadersFrom(ctx).sets.editable(ctx, r.Client, s.ID)
}

// sets writes sets and their drafts.
func (r *Resolver) sets() *sets.Service {
	return &sets.Service{Store: r.Store}
}

// checkSetVersionsToPublish checks set versions a publish names: each a
// draft of a set the caller may edit, not already waiting in a publish.
func (r *Resolver) checkSetVersionsToPublish(ctx context.Context, ids []int) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := access.RequireUser(ctx, auth.ScopeSetsWrite); err != nil {
		return err
	}
	vs, err := r.Client.SetVersion.Query().Where(setversion.IDIn(ids...)).All(ctx)
	if err != nil {
		return err
	}
	if id, ok := missingID(ids, vs, func(v *ent.SetVersion) int { return v.ID }); !ok {
		return notYoursToPublish("Set version", id)
	}
	for _, v := range vs {
		if _, _, err := r.loadSetVersion(ctx, v.SetID, v.ID, true); err != nil {
			return notYoursToPublish("Set version", v.ID)
		}
		if err := r.publishableSetVersion(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// publishableSetVersion refuses (CONFLICT) a version that is not a draft
// or already waits in a publish group.
func (r *Resolver) publishableSetVersion(ctx context.Context, v *ent.SetVersion) error {
	if err := lifecycle.MayPublish(v.ID, v.State); err != nil {
		return err
	}
	pending, err := r.Client.PublishGroup.Query().Where(publishgroup.StateEQ(publishgroup.StatePublishing)).All(ctx)
	if err != nil {
		return err
	}
	for _, g := range pending {
		for _, id := range g.SetVersions {
			if id == v.ID {
				return apperr.New(apperr.Conflict, "Version %d already has a publish job (%d).", v.ID, g.ID)
			}
		}
	}
	return nil
}

// requireSetGroup checks that the caller may put a set in a group: edit_data
// or more there, or site administrator.
func (r *Resolver) requireSetGroup(ctx context.Context, groupID int) error {
	gc, err := r.callerInGroup(ctx, groupID, auth.ScopeSetsWrite)
	if apperr.CodeOf(err) == apperr.NotFound {
		return apperr.Field("group", "Group does not exist.")
	}
	if err != nil {
		return err
	}
	if !gc.p.IsSiteAdmin() && !access.AtLeast(gc.perm, groupmembership.PermissionEditData) {
		return apperr.New(apperr.PermissionDenied, "You need edit_data on group %d to add sets to it.", groupID)
	}
	return nil
}

// shownSetVersion is the version a set shows by default: the published
// one, else (never published) the draft for editors; nil for others.
func (r *Resolver) shownSetVersion(ctx context.Context, s *ent.Set) (*ent.SetVersion, error) {
	if v, err := r.Set().PublishedVersion(ctx, s); v != nil || err != nil {
		return v, err
	}
	return r.Set().DraftVersion(ctx, s)
}

// setOrder is the order of a set list; ties fall back to id so pages are
// stable.
func setOrder(s *SetSort) []set.OrderOption {
	if s == nil {
		return []set.OrderOption{set.ByID()}
	}
	desc := entsql.OrderDesc()
	switch *s {
	case SetSortTitle:
		return []set.OrderOption{set.ByTitle(), set.ByID()}
	case SetSortTitleDesc:
		return []set.OrderOption{set.ByTitle(desc), set.ByID(desc)}
	case SetSortCreatedAt:
		return []set.OrderOption{set.ByCreatedAt(), set.ByID()}
	case SetSortCreatedAtDesc:
		return []set.OrderOption{set.ByCreatedAt(desc), set.ByID(desc)}
	case SetSortUpdatedAt:
		return []set.OrderOption{set.ByUpdatedAt(), set.ByID()}
	case SetSortUpdatedAtDesc:
		return []set.OrderOption{set.ByUpdatedAt(desc), set.ByID(desc)}
	}
	return []set.OrderOption{set.ByID()}
}

// setKind is the sets' datasetKind. The versions a set's list returns are
// registered with the loader, which reads their members next.
func (r *Resolver) setKind() datasetKind[ent.Set, ent.SetVersion] {
	return datasetKind[ent.Set, ent.SetVersion]{
		kind:       access.KindSet,
		readScope:  auth.ScopeSetsRead,
		writeScope: auth.ScopeSetsWrite,
		query: func(ctx context.Context, id int, visible func(*entsql.Selector)) (*ent.Set, error) {
			return r.Client.Set.Query().Where(set.ID(id), predicate.Set(visible)).Only(ctx)
		},
		title:     "Set",
		noun:      func(s *ent.Set) string { return fmt.Sprintf("set %d", s.ID) },
		canEdit:   r.canEditSet,
		name:      func(s *ent.Set) string { return fmt.Sprintf("Set %d", s.ID) },
		ids:       func(s *ent.Set) (int, *int) { return s.ID, s.PublishedVersionID },
		versionID: func(v *ent.SetVersion) int { return v.ID },
		current: func(ctx context.Context, id int) (currentOf[*ent.SetVersion], error) {
			return loadersFrom(ctx).sets.versions(ctx, r.Client, id)
		},
		mayEdit: r.canEditSet,
		get:     r.Client.SetVersion.Get,
		version: func(ctx context.Context, id, versionID int) (*ent.SetVersion, error) {
			return r.Client.SetVersion.Query().Where(setversion.ID(versionID), setversion.SetID(id)).Only(ctx)
		},
		released: func(v *ent.SetVersion) bool {
			return lifecycle.Released(v.State)
		},
		list: func(ctx context.Context, id int, drafts bool) ([]*ent.SetVersion, error) {
			q := r.Client.SetVersion.Query().Where(setversion.SetID(id), setversion.StateNEQ(setversion.StateDeleted))
			if !drafts {
				q.Where(setversion.StateIn(setversion.StatePublished, setversion.StateSuperseded))
			}
			vs, err := q.Order(setversion.ByID(entsql.OrderDesc())).All(ctx)
			if err == nil {
				loadersFrom(ctx).sets.registerVersions(vs)
			}
			return vs, err
		},
	}
}
