package graph_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/geopub/geopub/internal/server/servertest"
	"github.com/geopub/geopub/internal/store"
)

// gqlMatrix is one backend's run of the read matrix.
type gqlMatrix struct {
	f    *gqlFixtures
	o    *restOracle
	mu   sync.Mutex
	seen map[string]bool
}

// variant is one call of a root query: its arguments and, for roots that
// take a dataset by type and id, the dataset its answer belongs to.
type variant struct {
	name   string
	args   map[string]any
	parent map[string]any
}

// rootVariants are the calls of every root query field over the
// fixtures: each object-taking root on a private and a public object.
func rootVariants(f *gqlFixtures) map[string][]variant {
	out := map[string][]variant{}
	add := func(root, name string, args map[string]any, parent map[string]any) {
		out[root] = append(out[root], variant{name, args, parent})
	}
	for _, v := range []string{"private", "public"} {
		ds := func(kind string) any { return f.vars[kind+"."+v] }
		for _, k := range []struct{ kind, typ, gql, root, idArg, verRoot, verArg, versRoot string }{
			{"layer", "LAYER", "Layer", "layer", "id", "layerVersion", "layerID", "layerVersions"},
			{"set", "SET", "Set", "set", "id", "setVersion", "setID", "setVersions"},
			{"document", "DOCUMENT", "Document", "document", "id", "documentVersion", "documentID", "documentVersions"},
			{"item", "CATALOG_ITEM", "CatalogItem", "catalogItem", "id", "catalogItemVersion", "itemID", "catalogItemVersions"},
		} {
			add(k.root, v, map[string]any{k.idArg: ds(k.kind)}, nil)
			for _, ver := range []string{"pub", "draft"} {
				add(k.verRoot, v+"/"+ver, map[string]any{k.verArg: ds(k.kind), "versionID": f.vars[k.kind+"."+v+"."+ver]}, nil)
			}
			add(k.versRoot, v, map[string]any{k.verArg: ds(k.kind)}, nil)
			if k.kind == "layer" {
				// The diff from the published version to the draft, and
				// from nothing to the published one.
				add("layerDiff", v+"/draft", map[string]any{"layerID": ds(k.kind), "from": f.vars["layer."+v+".pub"], "to": f.vars["layer."+v+".draft"]}, nil)
				add("layerDiff", v+"/pub", map[string]any{"layerID": ds(k.kind)}, nil)
			}
			diffRoot, diffArg := map[string]string{"set": "setDiff", "item": "catalogItemDiff"}[k.kind], k.verArg
			if diffRoot != "" {
				add(diffRoot, v+"/draft", map[string]any{diffArg: ds(k.kind), "from": f.vars[k.kind+"."+v+".pub"], "to": f.vars[k.kind+"."+v+".draft"]}, nil)
				add(diffRoot, v+"/pub", map[string]any{diffArg: ds(k.kind)}, nil)
			}
			num := ds(k.kind)
			if k.kind == "item" {
				num = f.vars["item."+v+".num"]
			}
			parent := map[string]any{"__typename": k.gql, "id": ds(k.kind)}
			add("datasetPermissions", k.kind+"/"+v, map[string]any{"type": k.typ, "id": num}, parent)
			add("datasetPermission", k.kind+"/"+v, map[string]any{"type": k.typ, "id": num, "key": fmt.Sprintf("user.%d", f.spare.User.ID)}, parent)
			if k.kind != "document" {
				add("datasetServices", k.kind+"/"+v, map[string]any{"type": k.typ, "id": num}, parent)
				add("datasetService", k.kind+"/"+v, map[string]any{"type": k.typ, "id": num, "serviceID": f.vars[k.kind+"."+v+".service"]}, parent)
			}
		}
		item := f.vars["item."+v]
		add("catalogItemAccessRequests", v, map[string]any{"itemID": item}, nil)
		add("catalogItemAccessRequest", v, map[string]any{"itemID": item, "requestID": f.vars["item."+v+".request"]}, nil)
		add("catalogItemFeedback", v, map[string]any{"itemID": item}, nil)
		g := f.vars["group."+v]
		add("group", v, map[string]any{"id": g}, nil)
		add("groupMembers", v, map[string]any{"groupID": g}, nil)
		add("groupMember", v, map[string]any{"groupID": g, "userID": f.spare.User.ID}, nil)
		add("groupAccessRequests", v, map[string]any{"groupID": g}, nil)
		add("accessRequest", v, map[string]any{"groupID": g, "requestID": f.vars["group."+v+".request"]}, nil)
		add("myAccessRequest", v, map[string]any{"groupID": g}, nil)
		for _, fb := range []string{"feedback.layer.", "ticket.layer.", "feedback.item.", "ticket.item."} {
			add("feedback", fb+v, map[string]any{"id": f.vars[fb+v]}, nil)
		}
	}
	src := f.vars["source"]
	add("source", "owned", map[string]any{"id": src}, nil)
	add("sourceScans", "owned", map[string]any{"sourceID": src}, nil)
	add("scan", "owned", map[string]any{"sourceID": src, "scanID": f.vars["scan"]}, nil)
	add("sourceDatasources", "owned", map[string]any{"sourceID": src, "includeMissing": true}, nil)
	add("datasource", "owned", map[string]any{"sourceID": src, "id": f.vars["ds.vector"]}, nil)
	add("datasetPermissions", "source", map[string]any{"type": "SOURCE", "id": src}, map[string]any{"__typename": "Source", "id": src})
	add("publishGroup", "owned", map[string]any{"id": f.vars["publish"]}, nil)
	add("publishGroups", "own", map[string]any{}, nil)
	add("scans", "visible", map[string]any{}, nil)
	add("token", "admin's", map[string]any{"id": f.vars["token"]}, nil)
	add("export", "admin's", map[string]any{"id": f.vars["export"]}, nil)
	add("exports", "own", map[string]any{}, nil)
	add("exports", "all", map[string]any{"all": true}, nil)
	add("user", "spare", map[string]any{"id": f.spare.User.ID}, nil)
	add("user", "outsider", map[string]any{"id": f.users["outsider"].User.ID}, nil)
	add("externalServiceTemplate", "matrix", map[string]any{"id": f.vars["template"]}, nil)
	add("license", "cc-by 4.0", map[string]any{"id": 1}, nil)
	add("cropLayers", "all", map[string]any{}, nil)
	add("cropLayer", "matrix", map[string]any{"id": f.vars["croplayer"]}, nil)
	add("webhook", "admin's", map[string]any{"id": f.vars["webhook"]}, nil)
	add("webhookDeliveries", "admin's", map[string]any{"id": f.vars["webhook"]}, nil)
	// Lists: everything, drafts too where they may be asked for.
	// Pages of 10 hold every fixture and keep the operations' cost down.
	for _, root := range []string{"layerSearch", "setSearch", "catalogItemSearch"} {
		add(root, "drafts", map[string]any{"drafts": true, "pageSize": 10}, nil)
	}
	add("documentSearch", "all", map[string]any{"pageSize": 10}, nil)
	// The catalogue, published and latest versions (the fixtures are
	// indexed: searchtest.Index).
	add("search", "published", map[string]any{"first": 50}, nil)
	add("search", "latest", map[string]any{"first": 50, "input": map[string]any{"state": "LATEST"}}, nil)
	for _, root := range []string{"groups", "users", "sets"} {
		add(root, "all", map[string]any{"first": 10}, nil)
	}
	for _, root := range []string{"me", "notifications", "tokens", "webhooks", "externalServiceTemplates", "sourceSearch", "userSearch", "groupSearch", "feedbackSearch", "licenses", "categories"} {
		add(root, "all", map[string]any{}, nil)
	}
	add("feedbackSearch", "tickets", map[string]any{"input": map[string]any{"type": "TICKET"}}, nil)
	oauthRootVariants(f, add)
	add("mySessions", "own", map[string]any{}, nil)
	add("auditEntries", "all", map[string]any{"first": 50}, nil)
	return out
}

// runReadMatrix runs every root query variant as every role, checks
// every object of every answer against the REST oracle, and fails on an
// entity field no answer reached.
func runReadMatrix(t *testing.T, schema *ast.Schema, fields map[string]bool, st *store.Store) {
	start := time.Now()
	f := newGQLFixtures(t, st)
	m := &gqlMatrix{f: f, o: &restOracle{e: f.e, cache: map[string]bool{}}, seen: map[string]bool{}}
	gen := &queryGen{s: schema, entities: fields}
	variants := rootVariants(f)
	var roots []string
	for _, fd := range schema.Query.Fields {
		// Entity roots, and roots answering an object that holds
		// entities (layerDiff's versions), which name their variants.
		if !fields["Query."+fd.Name] && len(variants[fd.Name]) == 0 {
			continue
		}
		roots = append(roots, fd.Name)
		if len(variants[fd.Name]) == 0 {
			t.Errorf("root query %s has no fixture variant: add one to rootVariants", fd.Name)
		}
	}
	sort.Strings(roots)
	t.Logf("fixtures: %v", time.Since(start))

	var mu sync.Mutex
	reached := map[string]string{}
	calls := 0
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, root := range roots {
		fd := schema.Query.Fields.ForName(root)
		for _, v := range variants[root] {
			for _, op := range m.fit(t, gen.operation(fd, v.args)) {
				for _, caller := range matrixRoles {
					wg.Add(1)
					sem <- struct{}{}
					go func() {
						defer wg.Done()
						defer func() { <-sem }()
						g := f.e.GraphQL(t, f.keys[caller], op.String(), v.args)
						for _, e := range g.Errors {
							if c := e.Code(); c == "" || c == "INTERNAL" || c == "GRAPHQL_VALIDATION_FAILED" || c == "COMPLEXITY_LIMIT_EXCEEDED" || c == "DEPTH_LIMIT" {
								t.Errorf("%s(%s) as %s: %s %s", root, v.name, caller, c, e.Message)
							}
						}
						var data map[string]any
						_ = json.Unmarshal(g.Data, &data)
						var anc []map[string]any
						if v.parent != nil {
							anc = append(anc, v.parent)
						}
						mu.Lock()
						calls++
						mu.Unlock()
						gen.visit(data[root], fd.Type.Name(), root+"("+v.name+")", anc,
							func(obj map[string]any, path string, anc []map[string]any) {
								m.checkRead(t, caller, obj, path+" as "+caller, anc)
							},
							func(key, path string) {
								mu.Lock()
								if _, ok := reached[key]; !ok {
									reached[key] = path
								}
								mu.Unlock()
							})
						if data[root] != nil && nonEmpty(data[root]) {
							mu.Lock()
							reached["Query."+root] = root
							mu.Unlock()
						}
					}()
				}
			}
		}
	}
	wg.Wait()
	var never []string
	for k := range fields {
		if _, ok := reached[k]; !ok && notReachedByQueries[k] == "" {
			never = append(never, k+" ("+fieldType(schema, k)+")")
		}
	}
	sort.Strings(never)
	for _, k := range never {
		t.Errorf("entity field %s is never exercised by the matrix's fixtures: no answer returned one", k)
	}
	t.Logf("%d queries, %d entity fields reached, in %v", calls, len(reached), time.Since(start))
}

// fit returns op, or the parts of it the complexity and field-count
// limits let through (the limits do not depend on the caller; a union of
// entities, such as search's Dataset, selects every member's fields).
func (m *gqlMatrix) fit(t *testing.T, op rootOp) []rootOp {
	g := m.f.e.GraphQL(t, "", op.String(), op.args)
	if len(g.Errors) == 0 || !splittable(g.Errors[0]) {
		return []rootOp{op}
	}
	parts := op.sel.split()
	if parts == nil {
		t.Errorf("Query.%s: even its scalars exceed the complexity limit", op.field.Name)
		return nil
	}
	var out []rootOp
	for _, p := range parts {
		out = append(out, m.fit(t, rootOp{field: op.field, args: op.args, sel: p})...)
	}
	return out
}

// splittable: an error a smaller selection avoids. Besides the limits,
// fields of union members that share a name but not a type (the
// versions' state enums) conflict in one selection set.
func splittable(e servertest.GraphQLError) bool {
	switch e.Code() {
	case "COMPLEXITY_LIMIT_EXCEEDED", "FIELD_LIMIT_EXCEEDED":
		return true
	case "GRAPHQL_VALIDATION_FAILED":
		return strings.Contains(e.Message, "conflict")
	}
	return false
}

// notReachedByQueries are the entity fields of payloads no query returns;
// the mutation matrix exercises them.
var notReachedByQueries = map[string]string{
	"LoginPayload.user":            "the login mutation's payload (TestGraphQLMutationMatrix)",
	"CreatedToken.token":           "the createToken mutation's payload (TestGraphQLMutationMatrix)",
	"CreatedOAuthClient.client":    "the createOAuthClient mutation's payload (TestGraphQLMutationMatrix)",
	"WebhookWithSecret.endpoint":   "the createWebhook and rotateWebhookSecret payloads (TestGraphQLMutationMatrix)",
	"CreateExportPayload.export":   "the createExport mutation's payload (TestGraphQLMutationMatrix)",
	"ExportItemValidation.license": "the validateExport and createExport payloads (TestGraphQLMutationMatrix)",
	"Subscription.notifications":   "the caller's own notifications over the websocket; Query.notifications serves the same rows",
	"CropLayer.feature":            "needs a feature id, which generated queries do not give; rest.TestCropLayers reads it over GraphQL, and CropLayer.features serves the same rows",
}

func fieldType(s *ast.Schema, key string) string {
	for name, def := range s.Types {
		for _, f := range def.Fields {
			if name+"."+f.Name == key {
				return f.Type.String()
			}
		}
	}
	return "?"
}
