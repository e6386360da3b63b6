package rest_test

import (
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/geopub/geopub/internal/server/servertest"
)

// The matrix rules of the dataset collections: layers, tables, documents,
// sets and catalog items, with their versions, metadata, permissions and
// services. Who may do what is the README's dataset permission table:
// view reads the published version, download downloads it, edit reads and
// changes the draft (and publishes it), admin deletes the dataset and
// manages its permissions and services.

// The order in which the consuming rules run (rule.last).
const (
	lastSubresource = iota + 1 // deletes of grants, parts, requests
	lastDropDraft              // delete the draft
	lastNewDraft               // create a draft again
	lastImport                 // import into it, bulk publish
	lastPublish                // publish it
	lastReplace                // replace the permission list
	lastDelete                 // delete the dataset
)

// collection is one dataset collection's route naming.
type collection struct {
	name   string // layers
	member string // the member's parameter in its own routes: lid
	shared string // in the permission and service routes: id
}

var collections = []collection{
	{"layers", "lid", "id"}, {"tables", "lid", "id"}, {"documents", "did", "id"},
	{"sets", "sid", "id"}, {"items", "cid", "cid"},
}

// draftIn finds the new draft's id in its URL.
var draftIn = regexp.MustCompile(`/versions/([0-9]+)/$`)

// newDraft records the draft an allowed create-draft call made: its
// this_version (a dataset record) or url (a document version record).
func newDraft(o *object, resp *servertest.Response) {
	var rec struct {
		ThisVersion string `json:"this_version"`
		URL         string `json:"url"`
	}
	if json.Unmarshal(resp.Body, &rec) != nil {
		return
	}
	for _, u := range []string{rec.ThisVersion, rec.URL} {
		if m := draftIn.FindStringSubmatch(u); m != nil {
			o.vars["draft"] = m[1]
			return
		}
	}
}

func bodyOf(v any) func(*fixtures, *object, role) any {
	return func(*fixtures, *object, role) any { return v }
}

func datasetRules(rules map[string]rule) {
	for _, c := range collections {
		addDatasetRules(rules, c)
		addPermissionRules(rules, c)
		if c.name != "documents" {
			addServiceRules(rules, c)
		}
	}
	addItemRules(rules)
	for _, c := range collections {
		// Following: whoever signed in may see the dataset.
		one := "/" + c.name + "/{" + c.shared + "}/follow"
		p := "/" + c.name + "/{id}/follow/"
		rules["POST "+one] = rule{kind: c.name, targets: []target{{p, userViews}}}
		rules["DELETE "+one] = rule{kind: c.name, targets: []target{{p, userViews}}}
		// Deprecating: whoever may edit the dataset, as for its drafts.
		dep, dp := "/"+c.name+"/{"+c.shared+"}/deprecate", "/"+c.name+"/{id}/deprecate/"
		rules["POST "+dep] = rule{kind: c.name, targets: []target{{dp, canEdit}},
			body: bodyOf(map[string]any{"reason": "Matrix deprecation"})}
		rules["DELETE "+dep] = rule{kind: c.name, targets: []target{{dp, canEdit}}}
	}
	for _, c := range collections[:4] {
		one := "/" + c.name + "/{" + c.member + "}/star"
		p := "/" + c.name + "/{id}/star/"
		rules["POST "+one] = rule{kind: c.name, targets: []target{{p, userViews}}}
		rules["DELETE "+one] = rule{kind: c.name, targets: []target{{p, userViews}}}
	}
	// The bulk publish takes the tables' drafts (before their own
	// publish route, which then finds none).
	// Refused callers get a field error on items, the same as for a
	// version that does not exist (TestBulkPublishDoesNotTellPrivateDraftsFromMissingOnes).
	rules["POST /publish"] = rule{kind: "tables", last: lastPublish, refused: []int{http.StatusBadRequest},
		targets: []target{{"/publish/", canEdit}},
		body: func(f *fixtures, o *object, _ role) any {
			return map[string]any{"items": []string{f.e.API + f.fill(nil, "/tables/{id}/versions/{draft}/", o)}}
		}}
}

func addDatasetRules(rules map[string]rule, c collection) {
	base, one := "/"+c.name, "/"+c.name+"/{"+c.member+"}"
	p := "/" + c.name + "/{id}/"
	v := one + "/versions/{vid}"
	pub, draft := p+"versions/{pub}/", p+"versions/{draft}/"
	rules["GET "+base] = rule{targets: []target{{base + "/", anyone}}}
	create := rule{targets: []target{{base + "/", signedIn}}, body: createBody(c.name)}
	if c.name != "sets" && c.name != "items" {
		// Made from the owner's datasources, which only the owner (and
		// site administrators) may use: others get the field error of a
		// datasource that does not exist.
		create = rule{kind: "sources", targets: []target{{base + "/", canAdmin}}, body: createBody(c.name),
			refused: []int{http.StatusBadRequest}}
	}
	rules["POST "+base] = create
	rules["GET "+one] = rule{kind: c.name, targets: []target{{p, canView}}}
	rules["DELETE "+one] = rule{kind: c.name, targets: []target{{p, canAdmin}}, last: lastDelete}
	rules["GET "+one+"/versions"] = rule{kind: c.name, targets: []target{{p + "versions/", canView}}}
	if c.name != "sources" {
		// The dataset's change feed: whoever may see the dataset.
		rules["GET /"+c.name+"/{"+c.shared+"}/changes"] = rule{kind: c.name,
			targets: []target{{p + "changes/", canView}, {p + "changes/?format=atom", canView}}}
	}
	rules["POST "+one+"/versions"] = rule{kind: c.name, targets: []target{{p + "versions/", canEdit}},
		body: bodyOf(map[string]any{}), last: lastNewDraft, after: newDraft}
	rules["GET "+v] = rule{kind: c.name, targets: []target{{pub, canView}, {draft, canEdit}}}
	rules["PUT "+v] = rule{kind: c.name, targets: []target{{draft, canEdit}}, body: bodyOf(map[string]any{"description": "Matrix edit"})}
	if c.name != "items" {
		rules["PATCH "+v] = rule{kind: c.name, targets: []target{{draft, canEdit}},
			body: bodyOf(map[string]any{"tags": []string{"matrix"}, "categories": []string{"transportation/roads"}, "license": 1})}
	}
	rules["DELETE "+v] = rule{kind: c.name, targets: []target{{draft, canEdit}}, last: lastDropDraft}
	meta := draft + "metadata/"
	rules["POST "+v+"/metadata"] = rule{kind: c.name, targets: []target{{meta, canEdit}},
		body:   func(f *fixtures, _ *object, _ role) any { return f.iso },
		header: map[string]string{"Content-Type": "text/xml"}}
	for _, f := range []string{"", "/simple", "/dc", "/iso", "/fgdc"} {
		r := rule{kind: c.name, targets: []target{{meta + f[min(1, len(f)):], canEdit}}}
		if f == "/fgdc" {
			r.ok = []int{http.StatusNotFound} // the fixture's metadata is ISO
		}
		if f != "" {
			r.targets[0].path += "/"
		}
		rules["GET "+v+"/metadata"+f] = r
	}
	// Restoring a version makes a draft: the fixtures have one, so those
	// who may edit get the conflict.
	rules["POST "+v+"/restore"] = rule{kind: c.name, targets: []target{{pub + "restore/", canEdit}},
		body: bodyOf(map[string]any{}), ok: []int{http.StatusConflict}}
	switch c.name {
	case "documents":
		rules["GET "+one+"/download"] = rule{kind: c.name, targets: []target{{p + "download/", canDown}}}
		rules["GET "+v+"/download"] = rule{kind: c.name, targets: []target{{pub + "download/", canDown}, {draft + "download/", canEdit}}}
		rules["POST "+v+"/import"] = rule{kind: c.name, targets: []target{{draft + "import/", canEdit}}, body: bodyOf(map[string]any{}), last: lastPublish}
	case "layers", "tables":
		rules["GET "+base+"/drafts"] = rule{targets: []target{{base + "/drafts/", anyone}}}
		rules["POST "+v+"/import"] = rule{kind: c.name, targets: []target{{draft + "import/", canEdit}}, body: bodyOf(map[string]any{}), last: lastImport}
		rules["POST "+one+"/versions/import"] = rule{kind: c.name, targets: []target{{p + "versions/import/", canEdit}},
			body: bodyOf(map[string]any{}), ok: []int{http.StatusConflict}} // the fixtures have drafts
		publish := rule{kind: c.name, targets: []target{{draft + "publish/", canEdit}}, body: bodyOf(map[string]any{}), last: lastPublish}
		if c.name == "tables" {
			publish.ok = []int{http.StatusConflict} // POST /publish published the tables' drafts
		}
		rules["POST "+v+"/publish"] = publish
		// The diff of two versions (kart-diff, a download-class service):
		// published versions for downloaders, drafts for editors.
		rules["GET "+one+"/diff"] = rule{kind: c.name, targets: []target{{p + "diff/", canDown},
			{p + "diff/?to={draft}&format=counts", canEdit}, {p + "diff/?from={draft}&to={pub}&format=jsonl", canEdit}}}
	default:
		rules["GET "+base+"/drafts"] = rule{targets: []target{{base + "/drafts/", anyone}}}
		rules["POST "+v+"/publish"] = rule{kind: c.name, targets: []target{{draft + "publish/", canEdit}}, body: bodyOf(map[string]any{}), last: lastPublish}
	}
	if c.name == "sets" || c.name == "items" {
		// The diff of two versions (kart-diff, a download-class service on
		// sets and catalog items too): published versions for
		// downloaders, drafts for editors.
		rules["GET "+one+"/diff"] = rule{kind: c.name, targets: []target{{p + "diff/", canDown},
			{p + "diff/?to={draft}", canEdit}, {p + "diff/?from={draft}&to={pub}", canEdit}}}
	}
}

// createBody is the body of a create call: from the owner's datasources
// for layers and documents, of a public layer for sets.
func createBody(collection string) func(*fixtures, *object, role) any {
	return func(f *fixtures, _ *object, r role) any {
		name := "Matrix new " + collection + " by " + r.String()
		switch collection {
		case "sets":
			return map[string]any{"title": name, "items": []string{f.e.API + f.fill(nil, "/layers/{id}/", f.objects["layers"][1])}}
		case "items":
			return map[string]any{"title": name, "link_url": "https://example.org/matrix"}
		}
		typ := map[string]string{"layers": "vector", "tables": "table", "documents": "document"}[collection]
		ds := num(f.objects["sources"][0].vars["ds."+typ])
		return map[string]any{"name": name, "data": map[string]any{"datasources": []int{ds}}}
	}
}

func addPermissionRules(rules map[string]rule, c collection) {
	one := "/" + c.name + "/{" + c.shared + "}/permissions"
	p := "/" + c.name + "/{id}/permissions/"
	rules["GET "+one] = rule{kind: c.name, targets: []target{{p, canAdmin}}}
	rules["POST "+one] = rule{kind: c.name, targets: []target{{p, canAdmin}},
		// The first allowed call grants the joiner; the next finds it.
		ok: []int{http.StatusConflict},
		body: func(f *fixtures, _ *object, _ role) any {
			return map[string]any{"user": f.joiner.ID, "permission": "view"}
		}}
	rules["PUT "+one] = rule{kind: c.name, targets: []target{{p, canAdmin}}, last: lastReplace,
		body: func(f *fixtures, o *object, _ role) any {
			grants := []map[string]any{
				{"permission": "view", "user": f.users[viewer].ID}, {"permission": "download", "user": f.users[downloader].ID},
				{"permission": "edit", "user": f.users[editor].ID}, {"permission": "admin", "user": f.users[owner].ID},
			}
			if o.levels[anonymous] > lvNone {
				grants = append(grants, map[string]any{"permission": "download", "group": "everyone"})
			}
			return grants
		}}
	rules["GET "+one+"/{pid}"] = rule{kind: c.name, targets: []target{{p + "{perm}/", canAdmin}}}
	rules["PUT "+one+"/{pid}"] = rule{kind: c.name, targets: []target{{p + "{perm}/", canAdmin}}, body: bodyOf(map[string]any{"permission": "view"})}
	rules["DELETE "+one+"/{pid}"] = rule{kind: c.name, targets: []target{{p + "{perm}/", canAdmin}}, last: lastSubresource}
}

func addServiceRules(rules map[string]rule, c collection) {
	one := "/" + c.name + "/{" + c.shared + "}"
	p := "/" + c.name + "/{id}/"
	svc, ext := p+"services/{svc}/", p+"external-services/{ext}/"
	rules["GET "+one+"/services"] = rule{kind: c.name, targets: []target{{p + "services/", canView}}}
	rules["GET "+one+"/services/{sid}"] = rule{kind: c.name, targets: []target{{svc, canView}}}
	rules["PUT "+one+"/services/{sid}"] = rule{kind: c.name, targets: []target{{svc, canAdmin}}, body: bodyOf(map[string]any{"enabled": true})}
	rules["GET "+one+"/services/{sid}/permissions"] = rule{kind: c.name, targets: []target{{svc + "permissions/", canAdmin}}}
	rules["PUT "+one+"/services/{sid}/permissions"] = rule{kind: c.name, targets: []target{{svc + "permissions/", canAdmin}}, body: bodyOf([]any{})}
	rules["GET "+one+"/services/{sid}/permissions/{role}/access"] = rule{kind: c.name, targets: []target{{svc + "permissions/user.{spare}/access/", canAdmin}}}
	rules["POST "+one+"/external-services"] = rule{kind: c.name, targets: []target{{p + "external-services/", canAdmin}},
		body: func(f *fixtures, _ *object, _ role) any {
			return map[string]any{"template_id": num(f.vars["tpl"]), "enabled": true}
		}}
	rules["GET "+one+"/external-services/{sid}"] = rule{kind: c.name, targets: []target{{ext, canView}}}
	rules["PUT "+one+"/external-services/{sid}"] = rule{kind: c.name, targets: []target{{ext, canAdmin}}, body: bodyOf(map[string]any{"enabled": true})}
	rules["DELETE "+one+"/external-services/{sid}"] = rule{kind: c.name, targets: []target{{ext, canAdmin}}, last: lastSubresource}
}

// addItemRules adds the catalog items' own parts: attachments, geotags,
// access requests, the consumer actions and feedback.
func addItemRules(rules map[string]rule) {
	one, p := "/items/{cid}", "/items/{id}/"
	rules["GET "+one+"/attachments"] = rule{kind: "items", targets: []target{{p + "attachments/", canView}}}
	rules["POST "+one+"/attachments"] = rule{kind: "items", targets: []target{{p + "attachments/", canEdit}},
		ok:   []int{http.StatusConflict}, // the fixture attached it already
		body: func(_ *fixtures, o *object, _ role) any { return map[string]any{"document": num(o.vars["att"])} }}
	rules["GET "+one+"/attachments/{did}"] = rule{kind: "items", targets: []target{{p + "attachments/{att}/", canView}}}
	rules["DELETE "+one+"/attachments/{did}"] = rule{kind: "items", targets: []target{{p + "attachments/{att}/", canEdit}}, last: lastSubresource}
	rules["GET "+one+"/geotags"] = rule{kind: "items", targets: []target{{p + "geotags/", canView}}}
	rules["POST "+one+"/geotags"] = rule{kind: "items", targets: []target{{p + "geotags/", canEdit}},
		body: bodyOf(map[string]any{"name": "Matrix place", "geometry": map[string]any{"type": "Point", "coordinates": []float64{172.6, -43.5}}})}
	rules["GET "+one+"/geotags/{gid}"] = rule{kind: "items", targets: []target{{p + "geotags/{geo}/", canView}}}
	rules["DELETE "+one+"/geotags/{gid}"] = rule{kind: "items", targets: []target{{p + "geotags/{geo}/", canEdit}}, last: lastSubresource}
	rules["GET "+one+"/access-requests"] = rule{kind: "items", targets: []target{{p + "access-requests/", canAdmin}}}
	rules["GET "+one+"/access-requests/{rid}"] = rule{kind: "items", targets: []target{{p + "access-requests/{req}/", canAdmin}}}
	rules["DELETE "+one+"/access-requests/{rid}"] = rule{kind: "items", targets: []target{{p + "access-requests/{req}/", canAdmin}}, last: lastSubresource}
	rules["POST "+one+"/access-requests/{rid}/approve"] = rule{kind: "items", targets: []target{{p + "access-requests/{req2}/approve/", canAdmin}},
		body: bodyOf(map[string]any{}), last: lastSubresource}
	for _, mark := range []string{"star", "pin"} {
		rules["POST "+one+"/"+mark] = rule{kind: "items", targets: []target{{p + mark + "/", userViews}}}
		rules["DELETE "+one+"/"+mark] = rule{kind: "items", targets: []target{{p + mark + "/", userViews}}}
	}
	// Asking for access is for those who may see the item: they have no
	// request (404) or already hold what they would ask for (409).
	selfService := []int{http.StatusNotFound, http.StatusConflict}
	for _, m := range []string{"GET", "POST", "DELETE"} {
		rules[m+" "+one+"/request-access"] = rule{kind: "items", targets: []target{{p + "request-access/", userViews}}, ok: selfService}
	}
	rules["GET "+one+"/feedback"] = rule{kind: "items", targets: []target{{p + "feedback/", canView}}}
	rules["POST "+one+"/feedback"] = rule{kind: "items", targets: []target{{p + "feedback/", userViews}},
		body: bodyOf(map[string]any{"description": "Matrix item feedback"})}
}
