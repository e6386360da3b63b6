package lifecycle

import (
	"errors"
	"testing"

	"github.com/geopub/geopub/ent/catalogitemversion"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/apperr"
)

// The four kinds' State enums hold the states this package names; a kind
// that renamed one would fall out of every rule here.
func TestEveryKindHasTheSharedStates(t *testing.T) {
	kinds := map[string][]string{
		"layer":        {string(layerversion.StateDraft), string(layerversion.StatePublished), string(layerversion.StateSuperseded), string(layerversion.StateDeleted)},
		"set":          {string(setversion.StateDraft), string(setversion.StatePublished), string(setversion.StateSuperseded), string(setversion.StateDeleted)},
		"document":     {string(documentversion.StateDraft), string(documentversion.StatePublished), string(documentversion.StateSuperseded), string(documentversion.StateDeleted)},
		"catalog item": {string(catalogitemversion.StateDraft), string(catalogitemversion.StatePublished), string(catalogitemversion.StateSuperseded), string(catalogitemversion.StateDeleted)},
	}
	want := []string{Draft, Published, Superseded, Deleted}
	for kind, got := range kinds {
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s versions name %q %q", kind, want[i], got[i])
			}
		}
	}
}

func TestOnlyADraftChanges(t *testing.T) {
	code := func(err error) apperr.Code {
		var e *apperr.Error
		if err == nil {
			return ""
		}
		if !errors.As(err, &e) {
			t.Fatalf("%v is not an apperr.Error", err)
		}
		return e.Code
	}
	for _, c := range []struct {
		state                   layerversion.State
		edit, imp, publish, del apperr.Code
		released                bool
	}{
		{layerversion.StateDraft, "", "", "", "", false},
		{layerversion.StatePublished, apperr.NotAllowed, apperr.Conflict, apperr.Conflict, apperr.NotAllowed, true},
		{layerversion.StateSuperseded, apperr.NotAllowed, apperr.Conflict, apperr.Conflict, apperr.NotAllowed, true},
		{layerversion.StateDeleted, apperr.NotAllowed, apperr.Conflict, apperr.Conflict, apperr.Conflict, false},
	} {
		if got := code(MayEdit(7, c.state)); got != c.edit {
			t.Errorf("edit %s: %q, want %q", c.state, got, c.edit)
		}
		if got := code(MayImport(7, c.state)); got != c.imp {
			t.Errorf("import %s: %q, want %q", c.state, got, c.imp)
		}
		if got := code(MayPublish(7, c.state)); got != c.publish {
			t.Errorf("publish %s: %q, want %q", c.state, got, c.publish)
		}
		if got := code(MayDelete(7, c.state)); got != c.del {
			t.Errorf("delete %s: %q, want %q", c.state, got, c.del)
		}
		if Released(c.state) != c.released {
			t.Errorf("released %s: %v", c.state, !c.released)
		}
	}
	if err := MayDelete(7, layerversion.StatePublished); err.Error() != "Version 7 is published: only a draft can be deleted." {
		t.Errorf("message: %q", err)
	}
	if err := MayDelete(7, layerversion.StateDeleted); err.Error() != "Version 7 is already deleted." {
		t.Errorf("message: %q", err)
	}
}
