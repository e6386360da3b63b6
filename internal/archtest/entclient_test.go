package archtest

import (
	"fmt"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// entDoors hold no Ent client: the REST and HTML doors reach the store
// through resolvers and services (issue 25, point 4).
var entDoors = []string{"rest", "web"}

// entBuilders end the names of the generated ent package's types that
// query or write the store (LayerQuery, LayerUpdateOne, LayerClient, ...).
var entBuilders = []string{
	"Query", "Select", "GroupBy", "Create", "CreateBulk", "Update",
	"UpdateOne", "Delete", "DeleteOne", "Mutation", "Upsert", "UpsertOne",
	"UpsertBulk", "Client",
}

// TestDoorsHoldNoEntClient type-checks the non-test files of rest/ and web/
// and fails on every expression whose type is Ent's client, a transaction,
// a builder of a query or a write, or a predicate. It reads types, not
// imports: `a.res.Client.Layer.Get(ctx, id)` imports nothing, and an
// entity (*ent.Layer) or an enum (layer.State) is no breach.
func TestDoorsHoldNoEntClient(t *testing.T) {
	for _, r := range entReaches(t) {
		t.Errorf("%s reaches the Ent client (%s): the layering rule (docs/architecture.md) forbids it",
			r.at, strings.Join(r.types, ", "))
	}
}

// entReach is one line of a door that reaches the Ent client.
type entReach struct {
	file  string   // the file, from the repository's root
	line  int      // the line in it
	at    string   // file:line
	types []string // the Ent types of the line's expressions
}

// entReaches type-checks the doors' non-test files and lists, by file and
// line, the expressions whose type reaches the Ent client.
func entReaches(t *testing.T) []entReach {
	t.Helper()
	treeOnce.Do(func() { touchTree(t) })
	root := repoRoot(t)
	patterns := make([]string, len(entDoors))
	for i, d := range entDoors {
		patterns[i] = "./" + d + "/..."
	}
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo,
		Dir: root,
	}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	byLine := map[[2]string]*entReach{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		if p.TypesInfo == nil {
			continue
		}
		for expr, tv := range p.TypesInfo.Types {
			name, ok := entClientType(tv.Type)
			if !ok {
				continue
			}
			pos := p.Fset.Position(expr.Pos())
			rel, err := filepath.Rel(root, pos.Filename)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.ToSlash(rel)
			key := [2]string{file, fmt.Sprint(pos.Line)}
			r := byLine[key]
			if r == nil {
				r = &entReach{file: file, line: pos.Line, at: fmt.Sprintf("%s:%d", file, pos.Line)}
				byLine[key] = r
			}
			r.types = append(r.types, name)
		}
	}
	var out []entReach
	for _, r := range byLine {
		slices.Sort(r.types)
		r.types = slices.Compact(r.types)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b entReach) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	return out
}

// entClientType names t when it is, or points to, one of Ent's types that
// reach the store: the client and a transaction, a per-entity client or
// builder, an order or aggregate function, a predicate or an order option,
// entgo.io's query and mutation interfaces, or a dialect's driver.
func entClientType(t types.Type) (string, bool) {
	for {
		p, ok := t.(*types.Pointer)
		if !ok {
			break
		}
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return "", false
	}
	path, name := n.Obj().Pkg().Path(), n.Obj().Name()
	qualified := n.Obj().Pkg().Name() + "." + name
	switch {
	case path == module+"/ent":
		if name == "Tx" || name == "OrderFunc" || name == "AggregateFunc" {
			return qualified, true
		}
		if isEntity(n) {
			return "", false // an entity named like a builder: ent.OAuthClient
		}
		for _, s := range entBuilders {
			if strings.HasSuffix(name, s) {
				return qualified, true
			}
		}
	case path == module+"/ent/predicate":
		return qualified, true
	case strings.HasPrefix(path, module+"/ent/") && name == "OrderOption":
		return strings.TrimPrefix(path, module+"/") + "." + name, true
	case path == "entgo.io/ent" || path == "entgo.io/ent/dialect" || strings.HasPrefix(path, "entgo.io/ent/dialect/"):
		return path + "." + name, true
	}
	return "", false
}

// isEntity reports whether n is one of Ent's entities (which have an
// Unwrap method giving the entity back), not a client or builder.
func isEntity(n *types.Named) bool {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(n), true, n.Obj().Pkg(), "Unwrap")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	res := fn.Type().(*types.Signature).Results()
	return res.Len() == 1 && types.Identical(res.At(0).Type(), types.NewPointer(n))
}
