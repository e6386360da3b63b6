package audit

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/geopub/geopub/internal/apperr"
)

func TestRedactDropsSecretsAtAnyDepth(t *testing.T) {
	got := redact(map[string]any{
		"name": "QGIS", "key": "abc", "key_hash": "h", "password": "p", "password_hash": "x",
		"source": map[string]any{"title": "Feed", "credentials": "u:p", "csrf_token": "c"},
	})
	want := map[string]any{"name": "QGIS", "source": map[string]any{"title": "Feed"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("redact = %v, want %v", got, want)
	}
	if redact(map[string]any{}) != nil {
		t.Fatal("an empty map should record as none")
	}
}

func TestGroupsRoundTrip(t *testing.T) {
	s := joinGroups([]int{7, 3, 7, 0})
	if s != ",3,7," {
		t.Fatalf("joinGroups = %q", s)
	}
	if got := splitGroups(s); !reflect.DeepEqual(got, []int{3, 7}) {
		t.Fatalf("splitGroups = %v", got)
	}
	if got := splitGroups(""); len(got) != 0 {
		t.Fatalf("splitGroups(\"\") = %v", got)
	}
}

func TestFilterChecks(t *testing.T) {
	now := time.Now()
	for name, f := range map[string]Filter{
		"target id alone": {TargetID: "4"},
		"from after to":   {From: &now, To: &now},
	} {
		if _, err := f.predicates(); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%s: error %v, want a bad request", name, err)
		}
	}
	if ps, err := (Filter{Action: "token.*"}).predicates(); err != nil || len(ps) != 1 {
		t.Fatalf("a prefix action: %v, %d predicates", err, len(ps))
	}
}

func TestActorComesFromContext(t *testing.T) {
	if a := ActorFrom(context.Background()); a.Kind != ActorSystem {
		t.Fatalf("no actor = %+v, want system", a)
	}
	id := 4
	ctx := WithActor(context.Background(), Actor{Kind: ActorToken, UserID: &id})
	if a := ActorFrom(ctx); a.Kind != ActorToken || *a.UserID != 4 {
		t.Fatalf("actor = %+v", a)
	}
	if clip("héllo", 2) != "h" {
		t.Fatalf("clip cut inside a rune: %q", clip("héllo", 2))
	}
}

// Changed keeps the fields that differ as their JSON does: a number and
// its float, equal lists and unchanged fields are left out.
func TestChangedKeepsWhatDiffers(t *testing.T) {
	before := map[string]any{"name": "a", "n": 3, "list": []string{"x"}, "gone": true, "nil": nil}
	after := map[string]any{"name": "b", "n": 3.0, "list": []string{"x"}, "nil": "set"}
	b, a := Changed(before, after)
	if len(b) != 2 || len(a) != 2 || b["name"] != "a" || a["name"] != "b" || b["nil"] != nil || a["nil"] != "set" {
		t.Fatalf("Changed = %v, %v; want name and nil only", b, a)
	}
}
