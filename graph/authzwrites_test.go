package graph_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/metadatadocument"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/setitem"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/store/storetest"
	"github.com/geopub/geopub/internal/webhooks"
)

// TestGraphQLMutationMatrix calls every mutation of the schema as every
// role on a private and a public object (issue 11: "0 writes the caller
// may not make"). Who may make a write is the REST rule: the caller may
// when the REST read that proves the right answers them 200 (the draft
// version's URL for edit, permissions/ for admin, /site/settings/ for
// site administrators). A refused call must leave every table as it was;
// a call that succeeds must come from a caller the REST rule allows. Each
// mutation must succeed for someone, so its inputs are known good and a
// refusal is the rule's, not bad input's.
func TestGraphQLMutationMatrix(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		start := time.Now()
		f := newGQLFixtures(t, st)
		dig := newDigester(t, st)
		dig.check(t)
		cases := mutationCases(t, f)
		for _, m := range schema.Mutation.Fields {
			if _, ok := cases[m.Name]; !ok && mutationsElsewhere[m.Name] == "" {
				t.Errorf("mutation %s has no case in mutationCases", m.Name)
			}
		}
		names := make([]string, 0, len(cases))
		for n := range cases {
			names = append(names, n)
		}
		// Consuming calls (deletes, publishes, approvals) each get fresh
		// objects, so the order only matters for readability.
		sort.Strings(names)
		calls := 0
		for _, name := range names {
			for _, tg := range cases[name].targets(f) {
				succeeded, lastErr := false, ""
				// Who may is read before the calls: a delete takes the
				// object, and its REST reads, away.
				may := tg.allow
				if may == nil {
					may = map[string]bool{}
					for _, role := range matrixRoles {
						may[role] = tg.may(t, f, role)
					}
				}
				before := dig.settled(t)
				for _, role := range matrixRoles {
					g := f.e.GraphQL(t, f.keys[role], cases[name].op, tg.vars)
					calls++
					after := dig.settled(t)
					if len(g.Errors) > 0 {
						lastErr = g.Errors[0].Message
						if after != before {
							t.Errorf("%s on %s as %s: refused (%s) but the store changed", name, tg.name, role, lastErr)
						}
						before = after
						continue
					}
					succeeded = true
					before = after
					if !may[role] {
						t.Errorf("%s on %s as %s: the write succeeded; the REST rule (GET %s) refuses them", name, tg.name, role, tg.need)
					}
				}
				if !succeeded && refusedForAll[name] == "" {
					t.Errorf("mutation %s on %s succeeded for no role (last error: %s): its case's inputs are wrong", name, tg.name, lastErr)
				}
			}
		}
		t.Logf("%d mutation calls in %v", calls, time.Since(start))
	})
}

// writeTarget is one object a mutation is called on, with its variables
// and the REST reads that prove the right to make the write.
type writeTarget struct {
	name string
	vars map[string]any
	// need are REST paths the caller must all read (200) to make the
	// write; "" allows anyone.
	need string
	// allow, when set, is the rule read beforehand (see withoutDrafts).
	allow map[string]bool
}

// may applies the REST rule.
func (w writeTarget) may(t *testing.T, f *gqlFixtures, role string) bool {
	if w.need == "" {
		return true
	}
	for _, p := range strings.Split(w.need, " ") {
		if r := f.e.Do(t, servertest.Request{Path: p, Key: f.keys[role]}); r.Status != 200 {
			return false
		}
	}
	return true
}

// mutationCase is a mutation's operation and the objects it is called on.
type mutationCase struct {
	op      string
	targets func(f *gqlFixtures) []writeTarget
}

// datasetKinds are the GraphQL names of the dataset kinds' mutations.
type datasetKind struct {
	key, typ, coll, idArg, verArg, id string
	// createDraft, update, deleteVersion, publish, delete, upload
	ops [6]string
}

var datasetKinds = []datasetKind{
	{"layer", "LAYER", "layers", "ID", "layerID", "layerID", [6]string{"createLayerDraft", "updateLayerVersion", "deleteLayerVersion", "publishLayerVersion", "deleteLayer", "uploadLayerMetadata"}},
	{"set", "SET", "sets", "ID", "setID", "setID", [6]string{"createSetDraft", "updateSetDraft", "deleteSetDraft", "publishSetVersion", "deleteSet", "uploadSetMetadata"}},
	{"document", "DOCUMENT", "documents", "ID", "documentID", "documentID", [6]string{"createDocumentDraft", "updateDocumentVersion", "deleteDocumentVersion", "publishDocumentVersion", "deleteDocument", "uploadDocumentMetadata"}},
	{"item", "CATALOG_ITEM", "items", "String", "itemID", "itemID", [6]string{"createCatalogItemDraft", "updateCatalogItemVersion", "deleteCatalogItemVersion", "publishCatalogItemVersion", "deleteCatalogItem", "uploadCatalogItemMetadata"}},
}

// fresh makes a new private and public object of kind (a layer, set,
// document, item or group) and returns their variable prefixes.
func (f *gqlFixtures) fresh(t *testing.T, kind string) [2]string {
	t.Helper()
	f.suffix = fmt.Sprintf("x%d", len(f.vars))
	defer func() { f.suffix = "" }()
	var out [2]string
	for i, public := range []bool{false, true} {
		switch kind {
		case "layer":
			f.addLayer(t, public)
		case "set":
			f.addSet(t, public)
		case "document":
			f.addDocument(t, public)
		case "item":
			f.addItem(t, public)
		case "group":
			f.addGroup(t, public)
		}
		out[i] = kind + "." + vis(public) + f.suffix
	}
	return out
}

func mutationCases(t *testing.T, f *gqlFixtures) map[string]mutationCase {
	xml, err := os.ReadFile("../rest/testdata/iso19139.xml")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]mutationCase{}
	exportCases(t, f, cases)
	oauthMutationCases(t, cases)
	// on builds a case over a fresh private and public object of kind
	// (or the shared ones when kind is ""), with vars and need from the
	// object's variable prefix p.
	on := func(name, op, kind string, fresh bool, vars func(p string) map[string]any, need func(p string) string) {
		cases[name] = mutationCase{op: op, targets: func(f *gqlFixtures) []writeTarget {
			prefixes := [2]string{kind + ".private", kind + ".public"}
			if fresh {
				prefixes = f.fresh(t, kind)
			}
			var out []writeTarget
			for _, p := range prefixes {
				out = append(out, writeTarget{name: p, vars: vars(p), need: need(p)})
			}
			return out
		}}
	}
	ref := func(k datasetKind, p string) any { return f.vars[p] }
	num := func(k datasetKind, p string) any {
		if k.key == "item" {
			return f.vars[p+".num"]
		}
		return f.vars[p]
	}
	url := func(k datasetKind, p string) string { return "/" + k.coll + "/" + itemRef(k.coll, f.vars[p]) + "/" }
	draftURL := func(k datasetKind, p string) string {
		return url(k, p) + "versions/" + fmt.Sprint(f.vars[p+".draft"]) + "/"
	}
	permsURL := func(k datasetKind, p string) string { return url(k, p) + "permissions/" }
	for _, k := range datasetKinds {
		id := "$id: " + k.idArg + "!"
		vid := id + ", $vid: ID!"
		pass := k.verArg + ": $id, versionID: $vid"
		edit := func(p string) string { return draftURL(k, p) }
		admin := func(p string) string { return permsURL(k, p) }
		idv := func(p string) map[string]any { return map[string]any{"id": ref(k, p)} }
		draftv := func(p string) map[string]any { return map[string]any{"id": ref(k, p), "vid": f.vars[p+".draft"]} }
		on(k.ops[0], fmt.Sprintf("mutation(%s) { %s(%s: $id) { id } }", id, k.ops[0], k.verArg), k.key, true, idv, edit)
		// Stars: any signed-in caller who sees the dataset.
		if star := map[string]string{"layer": "starLayer", "set": "starSet", "document": "starDocument"}[k.key]; star != "" {
			on(star, fmt.Sprintf("mutation(%s) { %s(id: $id, starred: true) { id isStarred } }", id, star), k.key, false, idv,
				func(p string) string { return "/users/me/ " + url(k, p) })
		}
		withoutDrafts(t, cases, k, k.ops[0])
		restore := map[string]string{"layer": "restoreLayerVersion", "set": "restoreSetVersion", "document": "restoreDocumentVersion",
			"item": "restoreCatalogItemVersion"}[k.key]
		on(restore, fmt.Sprintf("mutation(%s) { %s(%s) { id } }", vid, restore, pass), k.key, true,
			func(p string) map[string]any { return map[string]any{"id": ref(k, p), "vid": f.vars[p+".pub"]} }, edit)
		withoutDrafts(t, cases, k, restore)
		input := map[string]string{"layer": "{description: \"Matrix edit\"}", "set": "{description: \"Matrix edit\"}",
			"document": "{description: \"Matrix edit\"}", "item": "{description: \"Matrix edit\"}"}[k.key]
		on(k.ops[1], fmt.Sprintf("mutation(%s) { %s(%s, input: %s) { id } }", vid, k.ops[1], pass, input), k.key, true, draftv, edit)
		on(k.ops[2], fmt.Sprintf("mutation(%s) { %s(%s) }", vid, k.ops[2], pass), k.key, true, draftv, edit)
		on(k.ops[3], fmt.Sprintf("mutation(%s) { %s(%s) { id } }", vid, k.ops[3], pass), k.key, true, draftv, edit)
		on(k.ops[4], fmt.Sprintf("mutation(%s) { %s(id: $id) }", id, k.ops[4]), k.key, true, idv, admin)
		on(k.ops[5], fmt.Sprintf("mutation(%s, $xml: String!) { %s(%s, xml: $xml) { id } }", vid, k.ops[5], pass), k.key, true,
			func(p string) map[string]any { v := draftv(p); v["xml"] = string(xml); return v }, edit)
		typed := func(p string) map[string]any { return map[string]any{"type": k.typ, "id": num(k, p)} }
		spare := fmt.Sprintf("user.%d", f.spare.User.ID)
		permCase := func(name, op string, vars func(p string) map[string]any) {
			if k.key == "layer" {
				on(name, op, k.key, true, vars, admin)
				return
			}
			prev := cases[name]
			on(name, op, k.key, true, vars, admin)
			next := cases[name]
			cases[name] = mutationCase{op: op, targets: func(f *gqlFixtures) []writeTarget {
				return append(prev.targets(f), next.targets(f)...)
			}}
		}
		// Following: any signed-in caller who sees the dataset, as stars.
		prevFollow, hadFollow := cases["followDataset"]
		followOp := `mutation($type: DatasetType!, $id: ID!) { followDataset(dataset: {type: $type, id: $id}, following: true) }`
		on("followDataset", followOp, k.key, false, typed, func(p string) string { return "/users/me/ " + url(k, p) })
		if hadFollow {
			next := cases["followDataset"]
			cases["followDataset"] = mutationCase{op: followOp, targets: func(f *gqlFixtures) []writeTarget {
				return append(prevFollow.targets(f), next.targets(f)...)
			}}
		}
		// Deprecating: whoever may edit the dataset, as for its drafts.
		for name, op := range map[string]string{
			"deprecateDataset":   `mutation($type: DatasetType!, $id: ID!) { deprecateDataset(input: {type: $type, id: $id, reason: "Matrix deprecation"}) { reason } }`,
			"undeprecateDataset": `mutation($type: DatasetType!, $id: ID!) { undeprecateDataset(dataset: {type: $type, id: $id}) }`,
		} {
			prev, had := cases[name]
			on(name, op, k.key, true, typed, edit)
			if had {
				next := cases[name]
				cases[name] = mutationCase{op: op, targets: func(f *gqlFixtures) []writeTarget { return append(prev.targets(f), next.targets(f)...) }}
			}
		}
		permCase("grantDatasetPermission", `mutation($type: DatasetType!, $id: ID!) { grantDatasetPermission(type: $type, id: $id, input: {user: "`+fmt.Sprint(f.users["outsider"].User.ID)+`", permission: view}) { id } }`, typed)
		permCase("setDatasetPermissions", `mutation($type: DatasetType!, $id: ID!) { setDatasetPermissions(type: $type, id: $id, grants: [{user: "`+fmt.Sprint(f.users["admin"].User.ID)+`", permission: admin}]) { id } }`, typed)
		permCase("updateDatasetPermission", `mutation($type: DatasetType!, $id: ID!, $key: String!) { updateDatasetPermission(type: $type, id: $id, key: $key, permission: edit) { id } }`,
			func(p string) map[string]any { v := typed(p); v["key"] = spare; return v })
		permCase("revokeDatasetPermission", `mutation($type: DatasetType!, $id: ID!, $key: String!) { revokeDatasetPermission(type: $type, id: $id, key: $key) }`,
			func(p string) map[string]any { v := typed(p); v["key"] = spare; return v })
		if k.key == "document" {
			continue
		}
		// Each call gets a new external service of the object: the
		// deletes take theirs away.
		svc := func(p string) map[string]any {
			v := typed(p)
			out := f.mutate(t, "admin", `mutation($type: DatasetType!, $id: ID!, $tpl: ID!) { attachExternalService(type: $type, id: $id, templateID: $tpl, enabled: true) { id } }`,
				map[string]any{"type": k.typ, "id": v["id"], "tpl": f.vars["template"]})
			v["sid"] = out["attachExternalService"].(map[string]any)["id"]
			return v
		}
		svcCase := func(name, op string, vars func(p string) map[string]any) {
			prev, had := cases[name]
			on(name, op, k.key, false, vars, admin)
			if had {
				next := cases[name]
				cases[name] = mutationCase{op: op, targets: func(f *gqlFixtures) []writeTarget { return append(prev.targets(f), next.targets(f)...) }}
			}
		}
		svcCase("setServiceEnabled", `mutation($type: DatasetType!, $id: ID!, $sid: String!) { setServiceEnabled(type: $type, id: $id, serviceID: $sid, enabled: true) { id } }`, svc)
		svcCase("setServicePermissions", `mutation($type: DatasetType!, $id: ID!, $sid: String!) { setServicePermissions(type: $type, id: $id, serviceID: $sid, grants: []) { key } }`, svc)
		svcCase("attachExternalService", `mutation($type: DatasetType!, $id: ID!, $tpl: ID!) { attachExternalService(type: $type, id: $id, templateID: $tpl) { id } }`,
			func(p string) map[string]any { v := typed(p); v["tpl"] = f.vars["template"]; return v })
		svcCase("deleteExternalService", `mutation($type: DatasetType!, $id: ID!, $sid: String!) { deleteExternalService(type: $type, id: $id, serviceID: $sid) }`, svc)
	}
	addOtherCases(t, f, cases, on)
	return cases
}

// A digester tells whether the store changed between two calls: settled
// returns the digest of every row (digest) once background jobs are idle.
// On SQLite it computes it again only when the database did: PRAGMA
// data_version, read on a connection of its own, changes whenever another
// connection commits, and the service writes on others. Most refused calls
// write nothing, so most digests are read back unchanged.
type digester struct {
	st *store.Store
	// conn is SQLite's pinned connection (nil on PostgreSQL).
	conn        *sql.Conn
	version     int64
	last        string
	initialized bool
}

func newDigester(t *testing.T, st *store.Store) *digester {
	d := &digester{st: st}
	if st.Dialect == dialect.SQLite {
		conn, err := st.DB.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		d.conn = conn
	}
	return d
}

// check proves that the digest sees a write made through the service's
// pools, and sees it undone.
func (d *digester) check(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	first := d.settled(t)
	lic := d.st.Client.License.Query().FirstX(ctx)
	d.st.Client.License.UpdateOne(lic).SetTitle(lic.Title + " (changed)").ExecX(ctx)
	if d.settled(t) == first {
		t.Fatal("the store digest missed a write")
	}
	d.st.Client.License.UpdateOne(lic).SetTitle(lic.Title).ExecX(ctx)
	if d.settled(t) != first {
		t.Fatal("the store digest changed though the write was undone")
	}
}

func (d *digester) settled(t *testing.T) string {
	t.Helper()
	// Thirty seconds: in CI the package shares two cores with the rest
	// and cmd/geopub suites, and a job can wait there for seconds.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if jobsIdle(t, d.st) {
			return d.digest(t)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("background jobs never finished: %s", busyJobs(t, d.st))
	return ""
}

func (d *digester) digest(t *testing.T) string {
	t.Helper()
	if d.conn == nil {
		return digest(t, d.st)
	}
	var v int64
	if err := d.conn.QueryRowContext(context.Background(), `PRAGMA data_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if !d.initialized || v != d.version {
		d.last, d.version, d.initialized = digest(t, d.st), v, true
	}
	return d.last
}

// busyJobs describes the River jobs waiting to run or running.
func busyJobs(t *testing.T, st *store.Store) string {
	t.Helper()
	rows, err := st.DB.Query(`SELECT id, kind, state, attempt, COALESCE(CAST(errors AS TEXT), '') FROM river_job WHERE state IN ('available', 'running') ORDER BY id`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var kind, state, errs string
		var attempt int
		if err := rows.Scan(&id, &kind, &state, &attempt, &errs); err != nil {
			return err.Error()
		}
		out = append(out, fmt.Sprintf("job %d %s %s attempt %d %s", id, kind, state, attempt, errs))
	}
	return strings.Join(out, "; ")
}

// jobsIdle: no River job is waiting to run or running.
func jobsIdle(t *testing.T, st *store.Store) bool {
	t.Helper()
	var n int
	err := st.DB.QueryRow(`SELECT COUNT(*) FROM river_job WHERE state IN ('available', 'running')`).Scan(&n)
	if err != nil {
		return true // no queue table: no jobs
	}
	return n == 0
}

// digest hashes every row of every table but the bookkeeping ones reads
// touch (sessions, sign-in throttles, tokens' last use, River's queue
// housekeeping), so that any write shows. Rows are hashed from the
// driver's bytes, one sum a row, and a table's sums are sorted: SELECT *
// gives no order, and PostgreSQL moves an updated row. (It runs after
// each of the mutation matrix's thousand calls; formatting every value
// with fmt, as it once did, was two thirds of the matrix's time.)
func digest(t *testing.T, st *store.Store) string {
	t.Helper()
	ctx := context.Background()
	var q string
	if st.Dialect == dialect.SQLite {
		q = `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	} else {
		q = `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`
	}
	tables := queryStrings(t, st.DB, q)
	sort.Strings(tables)
	h := sha256.New()
	row := sha256.New()
	var size [4]byte
	for _, tb := range tables {
		if skipDigest[tb] || strings.HasPrefix(tb, "river_") {
			continue
		}
		rows, err := st.DB.QueryContext(ctx, `SELECT * FROM "`+tb+`"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var sums [][sha256.Size]byte
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			row.Reset()
			for i, c := range cols {
				if skipColumn[c] {
					continue
				}
				// Each value length-prefixed, NULL apart from empty.
				n := uint32(len(vals[i]))
				if vals[i] == nil {
					n = math.MaxUint32
				}
				binary.BigEndian.PutUint32(size[:], n)
				row.Write(size[:])
				row.Write(vals[i])
			}
			var sum [sha256.Size]byte
			row.Sum(sum[:0])
			sums = append(sums, sum)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
		fmt.Fprintf(h, "%s:%d\n", tb, len(sums))
		for _, sum := range sums {
			h.Write(sum[:])
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

var skipDigest = map[string]bool{"sessions": true, "login_throttles": true, "schema_migrations": true}

var skipColumn = map[string]bool{"last_used_at": true, "last_used": true, "last_login": true, "last_login_at": true}

func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// caseFn builds a case over a private and a public object (see on in
// mutationCases).
type caseFn func(name, op, kind string, fresh bool, vars func(p string) map[string]any, need func(p string) string)

// addOtherCases are the mutations of catalog items' parts, groups,
// sources, feedback, the site and the caller's account.
func addOtherCases(t *testing.T, f *gqlFixtures, cases map[string]mutationCase, on caseFn) {
	itemURL := func(p string) string { return "/items/" + fmt.Sprint(f.vars[p]) + "/" }
	itemEdit := func(p string) string { return itemURL(p) + "versions/" + fmt.Sprint(f.vars[p+".draft"]) + "/" }
	itemAdmin := func(p string) string { return itemURL(p) + "permissions/" }
	signedInViews := func(p string) string { return "/users/me/ " + itemURL(p) }
	item := func(p string) map[string]any { return map[string]any{"id": f.vars[p]} }
	itemWith := func(k string, v func(p string) any) func(p string) map[string]any {
		return func(p string) map[string]any { m := item(p); m[k] = v(p); return m }
	}
	on("addCatalogItemAttachment", `mutation($id: String!, $doc: ID!) { addCatalogItemAttachment(itemID: $id, documentID: $doc) { id } }`, "item", true,
		itemWith("doc", func(string) any { return f.vars["layer.public"] }), itemEdit)
	cases["addCatalogItemAttachment"] = mutationCase{op: cases["addCatalogItemAttachment"].op, targets: func(f *gqlFixtures) []writeTarget {
		ps := f.fresh(t, "item")
		doc := f.fresh(t, "document")[1]
		var out []writeTarget
		for _, p := range ps {
			// The fresh items hold the shared documents: attach a new one.
			out = append(out, writeTarget{name: p, vars: map[string]any{"id": f.vars[p], "doc": f.vars[doc]}, need: itemEdit(p)})
		}
		return out
	}}
	on("removeCatalogItemAttachment", `mutation($id: String!, $doc: ID!) { removeCatalogItemAttachment(itemID: $id, documentID: $doc) }`, "item", true,
		itemWith("doc", func(string) any { return f.vars["document.public"] }), itemEdit)
	on("addCatalogItemGeotag", `mutation($id: String!) { addCatalogItemGeotag(itemID: $id, input: {name: "Matrix tag", geometry: {type: "Point", coordinates: [1.5, 2.5]}}) { id } }`, "item", false, item, itemEdit)
	on("removeCatalogItemGeotag", `mutation($id: String!, $g: ID!) { removeCatalogItemGeotag(itemID: $id, geotagID: $g) }`, "item", true,
		itemWith("g", func(p string) any { return f.vars[p+".geotag"] }), itemEdit)
	on("starCatalogItem", `mutation($id: String!) { starCatalogItem(itemID: $id, starred: true) { id } }`, "item", false, item, signedInViews)
	on("pinCatalogItem", `mutation($id: String!) { pinCatalogItem(itemID: $id, pinned: true) { id } }`, "item", false, item, signedInViews)
	on("requestCatalogItemAccess", `mutation($id: String!) { requestCatalogItemAccess(itemID: $id) { id } }`, "item", true, item, signedInViews)
	// The viewer has a request to revoke too: the outsider's is on an
	// item they may not see.
	on("revokeCatalogItemAccessRequest", `mutation($id: String!) { revokeCatalogItemAccessRequest(itemID: $id) }`, "item", true,
		func(p string) map[string]any {
			f.e.Store.Client.DatasetAccessRequest.Create().SetDatasetKind("item").SetDatasetID(f.vars[p+".num"].(int)).
				SetUserID(f.users["viewer"].User.ID).ExecX(context.Background())
			return item(p)
		}, signedInViews)
	on("approveCatalogItemAccessRequest", `mutation($id: String!, $r: ID!) { approveCatalogItemAccessRequest(itemID: $id, requestID: $r) { id } }`, "item", true,
		itemWith("r", func(p string) any { return f.vars[p+".request"] }), itemAdmin)
	on("declineCatalogItemAccessRequest", `mutation($id: String!, $r: ID!) { declineCatalogItemAccessRequest(itemID: $id, requestID: $r) }`, "item", true,
		itemWith("r", func(p string) any { return f.vars[p+".request"] }), itemAdmin)
	on("createCatalogItemFeedback", `mutation($id: String!) { createCatalogItemFeedback(itemID: $id, input: {description: "Matrix new feedback"}) { id } }`, "item", false, item, signedInViews)

	// Groups: their members are managed by edit_users and admin members
	// (GET /groups/{id}/permissions/).
	group := func(p string) map[string]any { return map[string]any{"g": f.vars[p]} }
	groupManage := func(p string) string { return fmt.Sprintf("/groups/%v/permissions/", f.vars[p]) }
	signedIn := func(string) string { return "/users/me/" }
	on("addGroupMember", fmt.Sprintf(`mutation($g: ID!) { addGroupMember(groupID: $g, input: {userID: "%d", permission: member}) { id } }`, f.users["siteadmin"].User.ID), "group", true, group, groupManage)
	on("setGroupMember", fmt.Sprintf(`mutation($g: ID!) { setGroupMember(groupID: $g, input: {userID: "%d", permission: edit_data}) { id } }`, f.spare.User.ID), "group", true, group, groupManage)
	on("removeGroupMember", fmt.Sprintf(`mutation($g: ID!) { removeGroupMember(groupID: $g, userID: "%d") }`, f.spare.User.ID), "group", true, group, groupManage)
	on("modifyGroupPermissions", fmt.Sprintf(`mutation($g: ID!) { modifyGroupPermissions(groupID: $g, actions: [{action: delete, userID: "%d"}]) }`, f.spare.User.ID), "group", true, group, groupManage)
	on("approveAccessRequest", `mutation($g: ID!, $r: ID!) { approveAccessRequest(groupID: $g, requestID: $r) { id } }`, "group", true,
		func(p string) map[string]any { return map[string]any{"g": f.vars[p], "r": f.vars[p+".request"]} }, groupManage)
	on("declineAccessRequest", `mutation($g: ID!, $r: ID!) { declineAccessRequest(groupID: $g, requestID: $r) }`, "group", true,
		func(p string) map[string]any { return map[string]any{"g": f.vars[p], "r": f.vars[p+".request"]} }, groupManage)
	// Both groups take requests here: the private one's refusal for that
	// reason is no authorization.
	on("requestGroupAccess", `mutation($g: ID!) { requestGroupAccess(groupID: $g) { id } }`, "group", true,
		func(p string) map[string]any {
			f.e.Store.Client.Group.UpdateOneID(f.vars[p].(int)).SetAccessRequestsEnabled(true).ExecX(context.Background())
			return group(p)
		}, signedIn)
	on("revokeGroupAccessRequest", `mutation($g: ID!) { revokeGroupAccessRequest(groupID: $g) }`, "group", true, group, signedIn)

	// The owner's source: GET /sources/{id}/ is for its administrators.
	source := func(string) map[string]any { return map[string]any{"s": f.vars["source"], "scan": f.vars["scan"]} }
	sourceAdmin := func(string) string { return fmt.Sprintf("/sources/%v/", f.vars["source"]) }
	one := func(name, op string, vars func(string) map[string]any, need func(string) string) {
		cases[name] = mutationCase{op: op, targets: func(*gqlFixtures) []writeTarget {
			return []writeTarget{{name: "shared", vars: vars(""), need: need("")}}
		}}
	}
	one("updateSource", `mutation($s: ID!) { updateSource(id: $s, input: {description: "Matrix edit"}) { id } }`, source, sourceAdmin)
	cases["startScan"] = mutationCase{op: `mutation($s: ID!) { startScan(sourceID: $s) { id } }`, targets: func(f *gqlFixtures) []writeTarget {
		s := f.freshSource(t)
		return []writeTarget{{name: "fresh source", vars: map[string]any{"s": s}, need: fmt.Sprintf("/sources/%v/", s)}}
	}}
	cases["cancelScan"] = mutationCase{op: `mutation($s: ID!, $scan: ID!) { cancelScan(sourceID: $s, scanID: $scan) { id } }`, targets: func(f *gqlFixtures) []writeTarget {
		sc := f.e.Store.Client.Scan.Create().SetSourceID(f.vars["source"].(int)).SetStatus(scan.StatusScanning).SetUserID(f.users["admin"].User.ID).SaveX(context.Background())
		return []writeTarget{{name: "running scan", vars: map[string]any{"s": f.vars["source"], "scan": sc.ID}, need: sourceAdmin("")}}
	}}
	cases["deleteSource"] = mutationCase{op: `mutation($s: ID!) { deleteSource(id: $s) }`, targets: func(f *gqlFixtures) []writeTarget {
		s := f.freshSource(t)
		return []writeTarget{{name: "fresh source", vars: map[string]any{"s": s}, need: fmt.Sprintf("/sources/%v/", s)}}
	}}

	// Feedback on the layers: replies by those who see it, deletes by
	// the layer's editors.
	fb := func(p string) map[string]any { return map[string]any{"id": f.vars["feedback."+p]} }
	fbView := func(p string) string { return "/users/me/ /comments/" + fmt.Sprint(f.vars["feedback."+p]) + "/" }
	fbEdit := func(p string) string {
		return fmt.Sprintf("/layers/%v/versions/%v/", f.vars[p], f.vars[p+".draft"])
	}
	on("updateFeedback", `mutation($id: ID!) { updateFeedback(id: $id, input: {description: "Matrix reply"}) { id } }`, "layer", false, fb, fbView)
	cases["deleteFeedback"] = mutationCase{op: `mutation($id: ID!) { deleteFeedback(id: $id) }`, targets: func(f *gqlFixtures) []writeTarget {
		var out []writeTarget
		for _, p := range []string{"layer.private", "layer.public"} {
			g := f.e.GraphQL(t, f.spare.Key, `mutation($id: ID!) { createFeedback(input: {description: "Matrix doomed", ticketedObject: {type: "layer", id: $id}}) { id } }`,
				map[string]any{"id": f.vars[p]})
			var res struct{ CreateFeedback struct{ ID string } }
			if len(g.Errors) > 0 || jsonUnmarshal(g.Data, &res) != nil {
				t.Fatalf("feedback: %+v", g.Errors)
			}
			out = append(out, writeTarget{name: p, vars: map[string]any{"id": res.CreateFeedback.ID}, need: fbEdit(p)})
		}
		return out
	}}
	on("createFeedback", `mutation($id: ID!) { createFeedback(input: {description: "Matrix new", ticketedObject: {type: "layer", id: $id}}) { id } }`, "layer", false,
		func(p string) map[string]any { return map[string]any{"id": f.vars[p]} },
		func(p string) string { return fmt.Sprintf("/users/me/ /layers/%v/", f.vars[p]) })

	// Creations: any signed-in user, from what they may use.
	none := func(string) map[string]any { return map[string]any{} }
	one("createCatalogItem", `mutation { createCatalogItem(input: {title: "Matrix new item", linkURL: "https://example.org/x"}) { id } }`, none, signedIn)
	one("createSet", `mutation { createSet(input: {title: "Matrix new set"}) { id } }`, none, signedIn)
	one("createGroup", `mutation { createGroup(input: {name: "Matrix new group", country: "NZ"}) { id } }`, none, func(string) string { return "/site/settings/" })
	one("createSource", `mutation($u: String!) { createSource(input: {type: url, title: "Matrix new source", urlRemote: $u}) { id } }`,
		func(string) map[string]any { return map[string]any{"u": f.e.HTTP.URL + "/data.geojson"} }, signedIn)
	// Made from the owner's datasources: only the owner may use them.
	dsAdmin := func(string) string { return fmt.Sprintf("/sources/%v/", f.vars["source"]) }
	one("createLayer", fmt.Sprintf(`mutation { createLayer(input: {name: "Matrix new layer", datasourceIDs: ["%v"]}) { id } }`, f.vars["ds.vector"]), none, dsAdmin)
	one("createDocument", fmt.Sprintf(`mutation { createDocument(input: {name: "Matrix new document", datasourceID: "%v"}) { id } }`, f.vars["ds.document"]), none, dsAdmin)
	one("publish", `mutation($v: ID!) { publish(input: {versionIDs: [$v]}) { id } }`,
		func(string) map[string]any { return map[string]any{"v": f.vars["layer.private.draft"]} },
		func(string) string {
			return fmt.Sprintf("/layers/%v/versions/%v/", f.vars["layer.private"], f.vars["layer.private.draft"])
		})
	one("cancelPublish", `mutation($id: ID!) { cancelPublish(id: $id) { id } }`,
		func(string) map[string]any { return map[string]any{"id": f.vars["publish"]} },
		func(string) string { return fmt.Sprintf("/publish/%v/", f.vars["publish"]) })
	one("importLayerVersion", `mutation($l: ID!, $v: ID!) { importLayerVersion(layerID: $l, versionID: $v) { id } }`,
		func(string) map[string]any {
			return map[string]any{"l": f.vars["layer.public"], "v": f.vars["layer.public.draft"]}
		},
		func(string) string {
			return fmt.Sprintf("/layers/%v/versions/%v/", f.vars["layer.public"], f.vars["layer.public.draft"])
		})

	// Start an update: fresh layers whose drafts are discarded (a draft
	// blocks it); the discarded draft is for editors' eyes only.
	cases["updateLayerFromDatasources"] = mutationCase{op: `mutation($l: ID!) { updateLayerFromDatasources(layerID: $l) { id } }`,
		targets: func(f *gqlFixtures) []writeTarget {
			var out []writeTarget
			for _, p := range f.fresh(t, "layer") {
				f.e.Store.Client.LayerVersion.UpdateOneID(f.vars[p+".draft"].(int)).SetState(layerversion.StateDeleted).ExecX(context.Background())
				out = append(out, writeTarget{name: p, vars: map[string]any{"l": f.vars[p]},
					need: fmt.Sprintf("/layers/%v/versions/%v/", f.vars[p], f.vars[p+".draft"])})
			}
			return out
		}}
	on("setLayerAutoupdate", `mutation($l: ID!) { setLayerAutoupdate(layerID: $l, autoupdate: true, schedule: "@daily") { id } }`, "layer", true,
		func(p string) map[string]any { return map[string]any{"l": f.vars[p]} },
		func(p string) string { return fmt.Sprintf("/layers/%v/versions/%v/", f.vars[p], f.vars[p+".draft"]) })

	// The site's settings and templates.
	site := func(string) string { return "/site/settings/" }
	tplInput := `{title: "Matrix other", templateURLs: [{serviceURL: "https://tiles.example.com/{id}"}], scope: ["all"]}`
	one("updateSiteSettings", `mutation { updateSiteSettings(input: {esriMap: true}) { esriMap } }`, none, site)
	one("createExternalServiceTemplate", `mutation { createExternalServiceTemplate(input: `+tplInput+`) { id } }`, none, site)
	one("updateExternalServiceTemplate", `mutation($id: ID!) { updateExternalServiceTemplate(id: $id, input: `+tplInput+`) { id } }`,
		func(string) map[string]any { return map[string]any{"id": f.vars["template"]} }, site)
	// Crop layers: site administrators (the REST rule: GET of the
	// templates, site administrators only).
	siteOnly := func(string) string { return "/site/external-service-templates/" }
	one("createCropLayer", `mutation($l: String!) { createCropLayer(input: {name: "Matrix new crop layer", layer: $l, nameField: "region"}) { id } }`,
		func(string) map[string]any { return map[string]any{"l": fmt.Sprint(f.vars["croplayer.layer"])} }, siteOnly)
	cases["deleteCropLayer"] = mutationCase{op: `mutation($id: ID!) { deleteCropLayer(id: $id) }`, targets: func(f *gqlFixtures) []writeTarget {
		out := f.mutate(t, "siteadmin", `mutation($l: String!) { createCropLayer(input: {name: "Matrix doomed", layer: $l, nameField: "region"}) { id } }`,
			map[string]any{"l": fmt.Sprint(f.vars["croplayer.layer"])})
		return []writeTarget{{name: "new crop layer", vars: map[string]any{"id": out["createCropLayer"].(map[string]any)["id"]}, need: "/site/external-service-templates/"}}
	}}
	cases["deleteExternalServiceTemplate"] = mutationCase{op: `mutation($id: ID!) { deleteExternalServiceTemplate(id: $id) }`, targets: func(f *gqlFixtures) []writeTarget {
		out := f.mutate(t, "siteadmin", `mutation { createExternalServiceTemplate(input: `+tplInput+`) { id } }`, nil)
		return []writeTarget{{name: "new template", vars: map[string]any{"id": out["createExternalServiceTemplate"].(map[string]any)["id"]}, need: "/site/settings/"}}
	}}

	// The caller's account: the admin's credentials and token, which
	// only they may read (GET /tokens/{id}/).
	creds := func(string) map[string]any {
		return map[string]any{"e": f.users["admin"].User.Email, "p": servertest.Password, "id": f.vars["token"]}
	}
	anyone := func(string) string { return "" }
	one("login", `mutation($e: String!, $p: String!) { login(email: $e, password: $p) { user { id email } } }`, creds, anyone)
	one("logout", `mutation { logout }`, none, anyone)
	one("createToken", `mutation($e: String!, $p: String!) { createToken(input: {username: $e, password: $p, name: "Matrix new", scope: "query"}) { key token { id name } } }`, creds, anyone)
	tokenOwner := func(string) string { return fmt.Sprintf("/tokens/%v/", f.vars["token"]) }
	one("updateToken", `mutation($id: ID!) { updateToken(id: $id, input: {name: "Matrix renamed"}) { id } }`, creds, tokenOwner)
	one("markNotificationsRead", `mutation { markNotificationsRead(upTo: "1000000") }`, none, signedIn)
	cases["deleteToken"] = mutationCase{op: `mutation($id: ID!) { deleteToken(id: $id) }`, targets: func(f *gqlFixtures) []writeTarget {
		f.e.Token(t, f.users["admin"].User, "query")
		id := latestTokenID(t, f)
		return []writeTarget{{name: "admin's token", vars: map[string]any{"id": id}, need: fmt.Sprintf("/tokens/%v/", id)}}
	}}

	// The admin's webhook, which they and site administrators manage
	// (GET /webhooks/{id}/).
	hook := func(string) map[string]any { return map[string]any{"id": f.vars["webhook"]} }
	hookOwner := func(string) string { return fmt.Sprintf("/webhooks/%v/", f.vars["webhook"]) }
	one("createWebhook", `mutation { createWebhook(input: {url: "http://127.0.0.1:9/matrix-new", datasets: ["layer:999999"]}) { secret endpoint { id } } }`,
		none, signedIn)
	one("updateWebhook", `mutation($id: ID!) { updateWebhook(id: $id, input: {url: "http://127.0.0.1:9/matrix", datasets: ["layer:999999"]}) { id } }`,
		hook, hookOwner)
	one("rotateWebhookSecret", `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, hook, hookOwner)
	one("redeliverWebhook", `mutation($id: ID!, $d: ID!) { redeliverWebhook(id: $id, deliveryId: $d) { id status } }`,
		func(string) map[string]any {
			return map[string]any{"id": f.vars["webhook"], "d": f.vars["webhook.delivery"]}
		}, hookOwner)
	cases["deleteWebhook"] = mutationCase{op: `mutation($id: ID!) { deleteWebhook(id: $id) }`, targets: func(f *gqlFixtures) []writeTarget {
		ep, _, err := f.e.Server.Resolver.WebhookService.Create(context.Background(), webhooks.Owner{UserID: f.users["admin"].User.ID},
			webhooks.Input{URL: "http://127.0.0.1:9/doomed", Datasets: []string{"layer:999999"}})
		if err != nil {
			t.Fatal(err)
		}
		return []writeTarget{{name: "admin's webhook", vars: map[string]any{"id": ep.ID}, need: fmt.Sprintf("/webhooks/%d/", ep.ID)}}
	}}
}

// withoutDrafts makes a case that makes a draft (the kind's create, or a
// restore) run on fresh objects whose draft was deleted. Who may make a
// draft is who may edit (POST versions/ needs edit): the rule is read at
// the draft's URL before the draft goes.
func withoutDrafts(t *testing.T, cases map[string]mutationCase, k datasetKind, name string) {
	c := cases[name]
	cases[name] = mutationCase{op: c.op, targets: func(f *gqlFixtures) []writeTarget {
		ctx, cl := context.Background(), f.e.Store.Client
		ts := c.targets(f)
		for i := range ts {
			p := ts[i].name
			ts[i].need = "/" + k.coll + "/" + itemRef(k.coll, f.vars[p]) + "/versions/" + fmt.Sprint(f.vars[p+".draft"]) + "/"
			// Read who may edit while the draft exists.
			ts[i].allow = map[string]bool{}
			for _, role := range matrixRoles {
				ts[i].allow[role] = ts[i].may(t, f, role)
			}
			d := f.vars[p+".draft"].(int)
			cl.MetadataDocument.Delete().Where(metadatadocument.VersionID(d)).ExecX(ctx)
			switch k.key {
			case "layer":
				cl.LayerVersion.DeleteOneID(d).ExecX(ctx)
			case "set":
				cl.SetItem.Delete().Where(setitem.SetVersionID(d)).ExecX(ctx)
				cl.SetVersion.DeleteOneID(d).ExecX(ctx)
			case "document":
				cl.DocumentVersion.DeleteOneID(d).ExecX(ctx)
			case "item":
				cl.CatalogItemVersion.DeleteOneID(d).ExecX(ctx)
			}
		}
		return ts
	}}
}

// freshSource adds another source like the shared one and returns it.
func (f *gqlFixtures) freshSource(t *testing.T) any {
	old := map[string]any{}
	for _, k := range []string{"source", "scan", "ds.vector", "ds.table", "ds.document"} {
		old[k] = f.vars[k]
	}
	f.addSource(t)
	s := f.vars["source"]
	for k, v := range old {
		f.vars[k] = v
	}
	return s
}

// latestTokenID is the id of the admin's newest token.
func latestTokenID(t *testing.T, f *gqlFixtures) int {
	t.Helper()
	return f.e.Store.Client.Token.Query().Where(token.UserID(f.users["admin"].User.ID)).Order(ent.Desc(token.FieldID)).FirstIDX(context.Background())
}

// refusedForAll are the mutations no fixture lets succeed, and why;
// their refusals are still checked to write nothing.
var refusedForAll = map[string]string{
	"createDocument": "copies its datasource's file, which the fixture source (a URL that does not resolve) cannot give",
}

// mutationsElsewhere are the mutations the matrix cannot call over JSON,
// with where their authorization is tested.
var mutationsElsewhere = map[string]string{
	"uploadSource": "takes multipart files (GraphQL multipart request spec); it creates a new source of the caller only",
}
