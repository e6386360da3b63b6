package store

import (
	"context"
	"fmt"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
)

// The groups every site has. Their slugs are also the special identifiers
// accepted wherever a group is named (for example the user list's `group`
// filter).
const (
	// DefaultGroupSlug names the site default group (type normal).
	DefaultGroupSlug = "default"
	// MembersGroupSlug names the organisation members group (type members);
	// every user belongs to it.
	MembersGroupSlug = "members"
)

// Seed creates the site default group and the members group when missing.
// It is idempotent.
func (s *Store) Seed(ctx context.Context) error {
	seeds := []struct {
		slug, name string
		typ        group.Type
		isDefault  bool
	}{
		{DefaultGroupSlug, "Site", group.TypeNormal, true},
		{MembersGroupSlug, "Members", group.TypeMembers, false},
	}
	for _, sd := range seeds {
		exists, err := s.Client.Group.Query().Where(group.URLSlug(sd.slug)).Exist(ctx)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		err = s.Client.Group.Create().
			SetName(sd.name).
			SetURLSlug(sd.slug).
			SetType(sd.typ).
			SetIsDefault(sd.isDefault).
			SetDataOwner(group.DataOwnerSite).
			Exec(ctx)
		// A concurrent start may have seeded it first: that is success.
		if err != nil && !ent.IsConstraintError(err) {
			return fmt.Errorf("seeding group %s: %w", sd.slug, err)
		}
	}
	return nil
}
