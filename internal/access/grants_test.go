package access_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/store/storetest"
)

func TestGrantKeys(t *testing.T) {
	for _, c := range []struct {
		key  string
		want access.Subject
	}{
		{"user.4", access.Subject{Kind: datasetpermission.SubjectUser, ID: 4}},
		{"group.7", access.Subject{Kind: datasetpermission.SubjectGroup, ID: 7}},
		{"group.everyone", access.Subject{Kind: datasetpermission.SubjectEveryone}},
		{"group.administrators", access.Subject{Kind: datasetpermission.SubjectAdministrators}},
		{"7", access.Subject{Kind: datasetpermission.SubjectGroup, ID: 7}},
		{"everyone", access.Subject{Kind: datasetpermission.SubjectEveryone}},
	} {
		got, err := access.ParseGrantKey(c.key)
		if err != nil || got != c.want {
			t.Errorf("ParseGrantKey(%q) = %+v, %v; want %+v", c.key, got, err, c.want)
		}
	}
	for key, want := range map[string]string{
		"user.4": "user.4", "group.7": "group.7", "7": "group.7",
		"group.everyone": "group.everyone", "administrators": "group.administrators",
	} {
		s, _ := access.ParseGrantKey(key)
		if got := s.Key(); got != want {
			t.Errorf("key of %q = %q, want %q", key, got, want)
		}
	}
	for _, key := range []string{"user.0", "user.x", "user.", "group.-1", "group.staff", "team.4", ""} {
		if s, err := access.ParseGrantKey(key); err == nil {
			t.Errorf("ParseGrantKey(%q) = %+v, want an error", key, s)
		}
	}
	if _, err := access.ParseGrantKey("team.4"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("an unknown kind of key: %v, want NOT_FOUND", err)
	}
}

func ptr[T any](v T) *T { return &v }

// grantsClient is a migrated SQLite store's client with one user and one
// group.
func grantsClient(t *testing.T) (c *ent.Client, userID, groupID int) {
	t.Helper()
	c = storetest.Open(t, dialect.SQLite, storetest.Options{}).Client
	ctx := context.Background()
	u := c.User.Create().SetEmail("grantee@example.com").SetPasswordHash("x").SaveX(ctx)
	g := c.Group.Create().SetName("Grantees").SetURLSlug("grantees").SaveX(ctx)
	return c, u.ID, g.ID
}

func TestCheckSubject(t *testing.T) {
	c, userID, groupID := grantsClient(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		ref  access.SubjectRef
		want access.Subject
	}{
		{"User", access.SubjectRef{User: &userID}, access.Subject{Kind: datasetpermission.SubjectUser, ID: userID}},
		{"Group", access.SubjectRef{Group: ptr(" " + strconv.Itoa(groupID) + " ")}, access.Subject{Kind: datasetpermission.SubjectGroup, ID: groupID}},
		{"Everyone", access.SubjectRef{Group: ptr("everyone")}, access.Subject{Kind: datasetpermission.SubjectEveryone}},
	} {
		got, err := access.CheckSubject(ctx, c, tc.ref)
		if err != nil || got != tc.want {
			t.Errorf("%s: CheckSubject = %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	for name, ref := range map[string]access.SubjectRef{
		"Both":         {User: &userID, Group: ptr("everyone")},
		"Neither":      {},
		"NoSuchUser":   {User: ptr(userID + 100)},
		"NoSuchGroup":  {Group: ptr(strconv.Itoa(groupID + 100))},
		"NotAGroupRef": {Group: ptr("staff")},
	} {
		if _, err := access.CheckSubject(ctx, c, ref); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%s: CheckSubject error %v, want INVALID", name, err)
		}
	}
	_, err := access.CheckSubjects(ctx, c, []access.SubjectRef{{User: &userID}, {Group: ptr("everyone")}, {User: &userID}})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Invalid {
		t.Errorf("a subject listed twice: %v, want INVALID", err)
	}
}

func TestGrantsOfADataset(t *testing.T) {
	c, userID, groupID := grantsClient(t)
	ctx := context.Background()
	user := access.Subject{Kind: datasetpermission.SubjectUser, ID: userID}
	for _, s := range []access.Subject{user, {Kind: datasetpermission.SubjectGroup, ID: groupID}, {Kind: datasetpermission.SubjectEveryone}} {
		if _, err := access.CreateGrant(ctx, c, access.KindLayer, 5, s, datasetpermission.PermissionView); err != nil {
			t.Fatalf("CreateGrant(%s): %v", s.Key(), err)
		}
	}
	if _, err := access.CreateGrant(ctx, c, access.KindLayer, 5, user, datasetpermission.PermissionEdit); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("a second grant to one subject: %v, want CONFLICT", err)
	}
	if _, err := access.CreateGrant(ctx, c, access.KindSet, 5, user, datasetpermission.PermissionEdit); err != nil {
		t.Errorf("a grant on another kind of dataset with the same id: %v", err)
	}
	ps, err := access.ListGrants(ctx, c, access.KindLayer, 5)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range ps {
		keys = append(keys, access.SubjectOf(p).Key())
	}
	if want := []string{"group.everyone", "group." + strconv.Itoa(groupID), "user." + strconv.Itoa(userID)}; !slices.Equal(keys, want) {
		t.Errorf("ListGrants = %v, want %v", keys, want)
	}
	p, err := access.FindGrant(ctx, c, access.KindLayer, 5, "user."+strconv.Itoa(userID))
	if err != nil || p.SubjectID != userID || p.Permission != datasetpermission.PermissionView {
		t.Errorf("FindGrant = %+v, %v", p, err)
	}
	for _, key := range []string{"group.administrators", "bogus.key"} {
		if _, err := access.FindGrant(ctx, c, access.KindLayer, 5, key); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("FindGrant(%q): %v, want NOT_FOUND", key, err)
		}
	}
}
