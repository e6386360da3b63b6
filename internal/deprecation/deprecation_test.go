package deprecation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/deprecation"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
)

// The rules of a marking (package doc): a reason, trimmed, not blank, at
// most MaxReason characters; a replacement of a known type that exists,
// that the caller sees, and that is not the dataset (a layer's id named
// as a table is still the same row).
func TestCheckRefusesBadMarkings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		owner := c.User.Create().SetEmail("o@example.com").SetPasswordHash("x").SetFirstName("O").SetLastName("W").SaveX(ctx)
		other := c.User.Create().SetEmail("x@example.com").SetPasswordHash("x").SetFirstName("X").SetLastName("Y").SaveX(ctx)
		mine := c.Layer.Create().SetType(layer.TypeLayer).SetName("Mine").SetUserID(owner.ID).SaveX(ctx)
		if err := access.GrantCreator(ctx, c, access.KindLayer, mine.ID, owner.ID); err != nil {
			t.Fatal(err)
		}
		theirs := c.Layer.Create().SetType(layer.TypeLayer).SetName("Theirs").SetUserID(other.ID).SaveX(ctx)
		if err := access.GrantCreator(ctx, c, access.KindLayer, theirs.ID, other.ID); err != nil {
			t.Fatal(err)
		}
		v, err := access.NewViewer(ctx, c, auth.Principal{Method: auth.SessionAuth, User: owner})
		if err != nil {
			t.Fatal(err)
		}
		d := deprecation.Dataset{Type: "layer", ID: mine.ID}
		repl := func(typ string, id int) *deprecation.Dataset { return &deprecation.Dataset{Type: typ, ID: id} }
		for _, c := range []struct {
			req   deprecation.Request
			field string
		}{
			{deprecation.Request{Reason: " \t"}, "reason"},
			{deprecation.Request{Reason: strings.Repeat("é", deprecation.MaxReason+1)}, "reason"},
			{deprecation.Request{Reason: "Old.", Replacement: repl("source", 1)}, "replacement"},
			{deprecation.Request{Reason: "Old.", Replacement: repl("layer", mine.ID)}, "replacement"},
			{deprecation.Request{Reason: "Old.", Replacement: repl("table", mine.ID)}, "replacement"},
			{deprecation.Request{Reason: "Old.", Replacement: repl("layer", theirs.ID)}, "replacement"},
			{deprecation.Request{Reason: "Old.", Replacement: repl("set", 999)}, "replacement"},
		} {
			_, err := deprecation.Check(ctx, st.Client, v, d, c.req)
			if ae := apperr.As(err); err == nil || ae.Code != apperr.Invalid || !strings.Contains(ae.Error(), c.field) {
				t.Errorf("%+v: %v, want an Invalid error naming %s", c.req, err, c.field)
			}
		}
		// The cap counts characters, not bytes, in the check and in the
		// store's validators alike.
		longest := strings.Repeat("é", deprecation.MaxReason)
		svc := &deprecation.Service{Store: st}
		if err := svc.Deprecate(ctx, v, d, deprecation.Request{Reason: longest}); err != nil {
			t.Fatalf("a reason of exactly %d characters: %v", deprecation.MaxReason, err)
		}
		if n, err := svc.Read(ctx, d); err != nil || n == nil || n.Reason != longest {
			t.Errorf("read back %+v, %v", n, err)
		}
	})
}

// Of reads a dataset's fields: nil when not deprecated, the replacement
// only when both its type and id are there.
func TestOfReadsTheFields(t *testing.T) {
	at := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	id := 7
	if n := deprecation.Of(nil, "x", "layer", &id); n != nil {
		t.Errorf("not deprecated: %+v", n)
	}
	if n := deprecation.Of(&at, "Old.", "", nil); n == nil || n.Replacement != nil || n.Reason != "Old." || !n.At.Equal(at) {
		t.Errorf("without a replacement: %+v", n)
	}
	if n := deprecation.Of(&at, "Old.", "set", &id); n == nil || n.Replacement == nil || *n.Replacement != (deprecation.Dataset{Type: "set", ID: 7}) {
		t.Errorf("with a replacement: %+v", n)
	}
}
