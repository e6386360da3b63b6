package accounts

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/catalogitem"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/feedback"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/servicepermission"
	"github.com/geopub/geopub/ent/set"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/ent/tilearchive"
	"github.com/geopub/geopub/ent/webhookendpoint"
	"github.com/geopub/geopub/internal/access"
)

// transfer hands what user from created to a receiver, in transaction c.
//
// Layers and tables, sets, documents, catalog items and sources take the
// receiving user as creator; given to a group, they take the group as
// owning group (its members' levels decide who edits them) and the
// administrator who deleted the user as creator. The grants from held on
// them pass to a receiving user (the higher level wins when the receiver
// held one already) and are dropped for a group, whose ownership stands
// in for them. Service permissions naming from on those datasets name the
// receiver instead. Versions keep who created them: history is not
// rewritten. Scans from started, and group webhooks from made, take the
// creator too.
type transfer struct {
	c       *ent.Client
	from    int
	to      Receiver
	creator int
}

// owned counts the datasets and sources from created.
func (t transfer) owned(ctx context.Context) (int, error) {
	total := 0
	for _, k := range t.kinds() {
		ids, err := k.ids(ctx)
		if err != nil {
			return 0, err
		}
		total += len(ids)
	}
	return total, nil
}

// ownedKind is one kind of owned thing: how to list from's and hand them
// over.
type ownedKind struct {
	name    access.Kind
	service servicepermission.OwnerKind // "" when the kind has no services
	ids     func(context.Context) ([]int, error)
	give    func(ctx context.Context, ids []int) error
}

func (t transfer) kinds() []ownedKind {
	c, g := t.c, t.to.GroupID
	return []ownedKind{
		{access.KindLayer, servicepermission.OwnerKindLayer,
			func(ctx context.Context) ([]int, error) { return c.Layer.Query().Where(layer.UserID(t.from)).IDs(ctx) },
			func(ctx context.Context, ids []int) error {
				u := c.Layer.Update().Where(layer.IDIn(ids...)).SetUserID(t.creator)
				if g != 0 {
					u.SetGroupID(g)
				}
				return u.Exec(ctx)
			}},
		{access.KindSet, servicepermission.OwnerKindSet,
			func(ctx context.Context) ([]int, error) { return c.Set.Query().Where(set.UserID(t.from)).IDs(ctx) },
			func(ctx context.Context, ids []int) error {
				u := c.Set.Update().Where(set.IDIn(ids...)).SetUserID(t.creator)
				if g != 0 {
					u.SetGroupID(g)
				}
				return u.Exec(ctx)
			}},
		{access.KindDocument, "",
			func(ctx context.Context) ([]int, error) {
				return c.Document.Query().Where(document.UserID(t.from)).IDs(ctx)
			},
			func(ctx context.Context, ids []int) error {
				u := c.Document.Update().Where(document.IDIn(ids...)).SetUserID(t.creator)
				if g != 0 {
					u.SetGroupID(g)
				}
				return u.Exec(ctx)
			}},
		{access.KindCatalogItem, servicepermission.OwnerKindCatalogItem,
			func(ctx context.Context) ([]int, error) {
				return c.CatalogItem.Query().Where(catalogitem.UserID(t.from)).IDs(ctx)
			},
			func(ctx context.Context, ids []int) error {
				u := c.CatalogItem.Update().Where(catalogitem.IDIn(ids...)).SetUserID(t.creator)
				if g != 0 {
					u.SetGroupID(g)
				}
				return u.Exec(ctx)
			}},
		{access.KindSource, "",
			func(ctx context.Context) ([]int, error) {
				return c.Source.Query().Where(source.UserID(t.from)).IDs(ctx)
			},
			func(ctx context.Context, ids []int) error {
				u := c.Source.Update().Where(source.IDIn(ids...)).SetUserID(t.creator)
				if g != 0 {
					u.SetGroupID(g)
				}
				return u.Exec(ctx)
			}},
	}
}

// run hands everything over and returns how many of each kind moved.
func (t transfer) run(ctx context.Context) (map[string]int, error) {
	moved := map[string]int{}
	for _, k := range t.kinds() {
		ids, err := k.ids(ctx)
		if err != nil {
			return nil, err
		}
		for part := range chunks(ids) {
			if err := k.give(ctx, part); err != nil {
				return nil, err
			}
			if err := t.grants(ctx, k.name, part); err != nil {
				return nil, err
			}
			if k.service != "" {
				if err := t.servicePermissions(ctx, k.service, part); err != nil {
					return nil, err
				}
			}
		}
		moved[string(k.name)] = len(ids)
	}
	return moved, t.rest(ctx)
}

// grants passes from's grants on datasets ids of kind to a receiving
// user, or drops them for a receiving group.
func (t transfer) grants(ctx context.Context, kind access.Kind, ids []int) error {
	rows, err := t.c.DatasetPermission.Query().Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetIDIn(ids...),
		datasetpermission.SubjectEQ(datasetpermission.SubjectUser), datasetpermission.SubjectID(t.from)).All(ctx)
	if err != nil || len(rows) == 0 {
		return err
	}
	for _, row := range rows {
		if t.to.UserID == 0 {
			if err := t.c.DatasetPermission.DeleteOne(row).Exec(ctx); err != nil {
				return err
			}
			continue
		}
		theirs, err := t.c.DatasetPermission.Query().Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetID(row.DatasetID),
			datasetpermission.SubjectEQ(datasetpermission.SubjectUser), datasetpermission.SubjectID(t.to.UserID)).First(ctx)
		switch {
		case ent.IsNotFound(err):
			err = row.Update().SetSubjectID(t.to.UserID).Exec(ctx)
		case err == nil:
			if access.LevelOf(row.Permission) > access.LevelOf(theirs.Permission) {
				err = theirs.Update().SetPermission(row.Permission).Exec(ctx)
			}
			if err == nil {
				err = t.c.DatasetPermission.DeleteOne(row).Exec(ctx)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// servicePermissions makes the permissions naming from on the services
// of datasets ids name the receiver.
func (t transfer) servicePermissions(ctx context.Context, kind servicepermission.OwnerKind, ids []int) error {
	rows, err := t.c.ServicePermission.Query().Where(servicepermission.OwnerKindEQ(kind), servicepermission.OwnerIDIn(ids...),
		servicepermission.SubjectEQ(servicepermission.SubjectUser), servicepermission.SubjectID(t.from)).All(ctx)
	if err != nil {
		return err
	}
	subject, id := servicepermission.SubjectUser, t.to.UserID
	if t.to.GroupID != 0 {
		subject, id = servicepermission.SubjectGroup, t.to.GroupID
	}
	for _, row := range rows {
		dup, err := t.c.ServicePermission.Query().Where(servicepermission.OwnerKindEQ(kind), servicepermission.OwnerID(row.OwnerID),
			servicepermission.ServiceID(row.ServiceID), servicepermission.SubjectEQ(subject), servicepermission.SubjectID(id)).Exist(ctx)
		if err != nil {
			return err
		}
		if dup {
			err = t.c.ServicePermission.DeleteOne(row).Exec(ctx)
		} else {
			err = row.Update().SetSubject(subject).SetSubjectID(id).Exec(ctx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rest hands over what from started on others' things: scans, group
// webhooks, tile archive builds they asked for, feedback assigned to
// them.
func (t transfer) rest(ctx context.Context) error {
	c := t.c
	if err := c.Scan.Update().Where(scan.UserID(t.from)).SetUserID(t.creator).Exec(ctx); err != nil {
		return err
	}
	err := c.WebhookEndpoint.Update().Where(webhookendpoint.UserID(t.from), webhookendpoint.GroupIDNotNil()).
		SetUserID(t.creator).Exec(ctx)
	if err != nil {
		return err
	}
	// 0 notifies the archive's owner's creator, now the receiver.
	if err := c.TileArchive.Update().Where(tilearchive.RequestedBy(t.from)).SetRequestedBy(0).Exec(ctx); err != nil {
		return err
	}
	return c.Feedback.Update().Where(feedback.AssigneeID(t.from)).ClearAssigneeID().Exec(ctx)
}

// chunkSize bounds the ids of one IN list.
const chunkSize = 500

func chunks(ids []int) func(func([]int) bool) {
	return func(yield func([]int) bool) {
		for len(ids) > 0 {
			n := min(len(ids), chunkSize)
			if !yield(ids[:n]) {
				return
			}
			ids = ids[n:]
		}
	}
}
