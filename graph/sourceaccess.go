package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// Sources take the dataset permission levels (access.KindSource): view
// sees a source, its description and its datasources; download makes
// layers and documents from its data; edit changes and scans it and sees
// its URL, options, scans and scan logs; admin deletes it and manages its
// permissions. A new source is its creator's alone (access.GrantCreator);
// members of its owning group hold edit (edit_data, edit_users) or admin
// (group admins); site administrators administer every source. Every
// source operation needs a signed-in caller.

// The source levels of the operations that are not plain reads.
const (
	// sourceScanLevel is what reading scans and their logs needs.
	sourceScanLevel = access.Edit
)

// sourceWhere narrows a source query to those the caller holds at least min
// on; nothing for anonymous callers.
func sourceWhere(ctx context.Context, c *ent.Client, min access.Level) (predicate.Source, error) {
	return access.SourcesHeld(ctx, c, auth.FromContext(ctx), min)
}

// sourceLevel is what the caller holds on a source, remembered for the
// request: nested fields ask it once per source, not once per item.
func (r *Resolver) sourceLevel(ctx context.Context, s *ent.Source) (access.Level, error) {
	p := auth.FromContext(ctx)
	if !p.Authenticated() {
		return access.None, nil
	}
	return loadersFrom(ctx).level(access.KindSource, s.ID, func() (access.Level, error) {
		return r.datasetLevel(ctx, access.KindSource, s.ID, s.GroupID)
	})
}

// sourceLevelByID is sourceLevel for a source known by id; None when it
// does not exist.
func (r *Resolver) sourceLevelByID(ctx context.Context, id int) (access.Level, error) {
	if !auth.FromContext(ctx).Authenticated() {
		return access.None, nil
	}
	s, err := loadersFrom(ctx).source(ctx, r.Client, id)
	if ent.IsNotFound(err) {
		return access.None, nil
	}
	if err != nil {
		return access.None, err
	}
	return r.sourceLevel(ctx, s)
}

// loadSource returns a source the caller holds at least need on, with
// their token carrying scope. Those who may not view it get NOT_FOUND, so
// its existence does not leak; those who view it without need get
// FORBIDDEN.
func (r *Resolver) loadSource(ctx context.Context, id int, scope string, need access.Level) (*ent.Source, error) {
	if _, err := access.RequireUser(ctx, scope); err != nil {
		return nil, err
	}
	notFound := apperr.New(apperr.NotFound, "Source %d not found.", id)
	s, err := loadersFrom(ctx).source(ctx, r.Client, id)
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	lv, err := r.sourceLevel(ctx, s)
	switch {
	case err != nil:
		return nil, err
	case lv < access.View:
		return nil, notFound
	case lv < need:
		return nil, apperr.New(apperr.PermissionDenied, "You need %s permission on source %d.", need, id)
	}
	return s, nil
}

// sourcePermTarget is a source as a permission target.
func sourcePermTarget(s *ent.Source) permTarget {
	return permTarget{kind: access.KindSource, id: s.ID, group: s.GroupID, label: s.Title}
}
