package sets

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/catalogterms"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/store"
)

// MaxItems bounds the members of one set version.
const MaxItems = 1000

// Service writes sets and their drafts. The front doors authorize the
// caller on the set and check its owning group and catalogue terms
// before calling in; the members are checked here, in the transaction
// that writes them.
type Service struct {
	Store *store.Store
}

// checkItems checks the members a write gives a set version: each an
// existing layer or table that visible admits, none twice. The message
// names the offending item (1-based) and its id.
func checkItems(ctx context.Context, c *ent.Client, visible predicate.Layer, ids []int) error {
	if len(ids) > MaxItems {
		return apperr.Field("items", fmt.Sprintf("A set holds at most %d members, not %d.", MaxItems, len(ids)))
	}
	seen := make(map[int]int, len(ids))
	for i, id := range ids {
		if first, dup := seen[id]; dup {
			return apperr.Field("items", fmt.Sprintf("Item %d repeats item %d (layer or table %d): a set holds each member once.", i+1, first, id))
		}
		seen[id] = i + 1
	}
	if len(ids) == 0 {
		return nil
	}
	found, err := c.Layer.Query().Where(layer.IDIn(ids...), visible).IDs(ctx)
	if err != nil {
		return err
	}
	ok := make(map[int]bool, len(found))
	for _, id := range found {
		ok[id] = true
	}
	for i, id := range ids {
		if !ok[id] {
			return apperr.Field("items", fmt.Sprintf("Item %d: there is no layer or table %d that you may see.", i+1, id))
		}
	}
	return nil
}

// writeError turns a foreign-key failure while writing members (a member
// layer deleted meanwhile) into a 400.
func writeError(err error) error {
	if ent.IsConstraintError(err) {
		return apperr.Field("items", "A member was deleted while the set was being saved; check the items and try again.")
	}
	return err
}

// A New is a set to create with its first draft.
type New struct {
	// Title is trimmed and not blank (textrules.Required).
	Title, Description string
	// GroupID owns the set (nil: its creator alone).
	GroupID *int
	// Items are the member layers and tables in order; each must pass
	// Visible, the layers the creator may see.
	Items   []int
	Visible predicate.Layer
	Terms   catalogterms.Edit
}

// Create writes a set of creatorID's, its creator's grants and its first
// draft with its members, in one transaction, and returns the draft's id.
func (s *Service) Create(ctx context.Context, creatorID int, n New) (int, error) {
	vid, err := store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (int, error) {
		if err := checkItems(ctx, c, n.Visible, n.Items); err != nil {
			return 0, err
		}
		st, err := c.Set.Create().SetTitle(n.Title).SetUserID(creatorID).SetNillableGroupID(n.GroupID).Save(ctx)
		if err != nil {
			return 0, err
		}
		if err := access.GrantDefaults(ctx, c, access.KindSet, st.ID, creatorID); err != nil {
			return 0, err
		}
		m := c.SetVersion.Create().SetSetID(st.ID).SetTitle(n.Title).SetDescription(n.Description).SetCreatedBy(creatorID)
		n.Terms.Apply(m.Mutation())
		v, err := m.Save(ctx)
		if err != nil {
			return 0, err
		}
		return v.ID, Replace(ctx, c, v.ID, n.Items)
	})
	return vid, writeError(err)
}

// NewDraft writes a draft of set st by userID that starts as version from
// is: title, description, terms, metadata document and members. It
// returns the draft's id.
func (s *Service) NewDraft(ctx context.Context, st *ent.Set, from *ent.SetVersion, userID int) (int, error) {
	return store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (int, error) {
		v, err := c.SetVersion.Create().SetSetID(st.ID).SetTitle(from.Title).SetDescription(from.Description).
			SetTags(from.Tags).SetCategories(from.Categories).SetNillableLicenseID(from.LicenseID).
			SetCreatedBy(userID).Save(ctx)
		if err != nil {
			return 0, err
		}
		if err := metadata.CopyDocument(ctx, c, metadata.KindSet, from.ID, v.ID); err != nil {
			return 0, err
		}
		return v.ID, Copy(ctx, c, from.ID, v.ID)
	})
}

// A Change is an edit of a set's draft; empty and nil fields stay as they
// are.
type Change struct {
	// Title is trimmed and not blank (textrules.Required), or empty.
	Title       string
	Description *string
	// Items, when not nil, replace the members; each must pass Visible.
	Items   []int
	Visible predicate.Layer
	Terms   catalogterms.Edit
}

// UpdateDraft applies ch to draft v of set st in one transaction, only
// while v is still a draft (a publish may have won the race: then 405).
// Until the set's first publish its title follows its draft's.
func (s *Service) UpdateDraft(ctx context.Context, st *ent.Set, v *ent.SetVersion, ch Change) error {
	err := s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		upd := c.SetVersion.Update().Where(setversion.ID(v.ID), setversion.StateEQ(setversion.StateDraft))
		ch.Terms.Apply(upd.Mutation())
		if ch.Title != "" {
			upd.SetTitle(ch.Title)
			if st.PublishedVersionID == nil {
				if err := c.Set.UpdateOneID(st.ID).SetTitle(ch.Title).Exec(ctx); err != nil {
					return err
				}
			}
		}
		if ch.Description != nil {
			upd.SetDescription(*ch.Description)
		}
		if n, err := upd.Save(ctx); err != nil || n == 0 {
			if err == nil {
				err = apperr.New(apperr.NotAllowed, "Version %d is no longer a draft: only a draft can be edited.", v.ID)
			}
			return err
		}
		if ch.Items == nil {
			return nil
		}
		if err := checkItems(ctx, c, ch.Visible, ch.Items); err != nil {
			return err
		}
		return Replace(ctx, c, v.ID, ch.Items)
	})
	return writeError(err)
}
