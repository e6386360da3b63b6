package graph_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// The matrix's oracle is the REST API: a caller may read an object that
// GraphQL returns exactly when its REST URL answers them 200. Objects
// that are parts of another (permissions, services, metadata, geotags,
// access requests) are read at their own URL under it.

// restOracle answers and caches whether a key reads a REST URL.
type restOracle struct {
	e     *servertest.Env
	mu    sync.Mutex
	cache map[string]bool
}

func (o *restOracle) reads(t *testing.T, key, path string) bool {
	t.Helper()
	o.mu.Lock()
	ok, seen := o.cache[key+" "+path]
	o.mu.Unlock()
	if seen {
		return ok
	}
	r := o.e.Do(t, servertest.Request{Path: path, Key: key})
	if r.Status >= 500 {
		t.Errorf("oracle GET %s: %d %s", path, r.Status, r.Body)
	}
	ok = r.Status == http.StatusOK
	o.mu.Lock()
	o.cache[key+" "+path] = ok
	o.mu.Unlock()
	return ok
}

// collections are the REST collections of the dataset kinds, by GraphQL
// type, permission kind and ticketed object type.
var collections = map[string]string{
	"Layer": "layers", "Set": "sets", "Document": "documents", "CatalogItem": "items", "Source": "sources",
	"layer": "layers", "set": "sets", "document": "documents", "catalog_item": "items", "catalog item": "items", "source": "sources", "item": "items",
	"LAYER": "layers", "SET": "sets", "DOCUMENT": "documents", "CATALOG_ITEM": "items", "SOURCE": "sources",
}

// itemRef is a catalog item's id in REST paths.
func itemRef(coll string, id any) string {
	s := fmt.Sprint(id)
	if coll == "items" && !strings.HasPrefix(s, "c") {
		return "c" + s
	}
	return s
}

// nearest returns the closest ancestor of one of the types.
func nearest(ancestors []map[string]any, types ...string) map[string]any {
	for i := len(ancestors) - 1; i >= 0; i-- {
		for _, t := range types {
			if ancestors[i]["__typename"] == t {
				return ancestors[i]
			}
		}
	}
	return nil
}

// idOf reads obj.field.id or obj.field.
func idOf(obj map[string]any, field string) string {
	switch v := obj[field].(type) {
	case map[string]any:
		return fmt.Sprint(v["id"])
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// parentID reads the id of obj's parent from field, or, where the
// generated query left it out (too deep), from the nearest ancestor of
// the parent's type.
func parentID(obj map[string]any, field string, ancestors []map[string]any, parentType string) string {
	if id := idOf(obj, field); id != "" {
		return id
	}
	if a := nearest(ancestors, parentType); a != nil {
		return fmt.Sprint(a["id"])
	}
	return ""
}

// publicByName are the types every caller who reaches them may read:
// names of people (a user's e-mail is checked apart).
var publicByName = map[string]string{
	"FeedbackPerson": "the author or assignee's name, as REST feedback shows it",
	"User":           "names only unless user(id:) / GET /users/{id} answers the caller (e-mail checked apart)",
	"Category":       "public reference data (GET /categories/ answers anyone)",
	"AuditTarget":    "part of an audit entry, which the oracle checks itself",
}

// restURL is the REST URL of an object GraphQL returned, found from its
// fields and its ancestors; "" when the oracle has no rule for its type
// (the test fails then).
func restURL(obj map[string]any, ancestors []map[string]any) string {
	id := fmt.Sprint(obj["id"])
	dataset := func() (string, string) {
		if k, ok := obj["datasetKind"].(string); ok {
			c := collections[k]
			return c, itemRef(c, obj["datasetID"])
		}
		a := nearest(ancestors, "Layer", "Set", "Document", "CatalogItem", "Source")
		if a == nil {
			return "", ""
		}
		c := collections[a["__typename"].(string)]
		return c, itemRef(c, a["id"])
	}
	switch tn := obj["__typename"].(string); tn {
	case "Layer", "Set", "Document", "CatalogItem", "Source":
		c := collections[tn]
		return "/" + c + "/" + itemRef(c, id) + "/"
	case "LayerVersion":
		return "/layers/" + parentID(obj, "layer", ancestors, "Layer") + "/versions/" + id + "/"
	case "SetVersion":
		return "/sets/" + idOf(obj, "setID") + "/versions/" + id + "/"
	case "DocumentVersion":
		return "/documents/" + idOf(obj, "documentID") + "/versions/" + id + "/"
	case "CatalogItemVersion":
		return "/items/" + itemRef("items", idOf(obj, "itemID")) + "/versions/" + id + "/"
	case "Scan":
		return "/sources/" + idOf(obj, "sourceID") + "/scans/" + id + "/"
	case "Datasource":
		// Layer versions show their datasources' titles and formats to
		// their readers: what the source's datasource URL guards is the
		// path (checked apart).
		return ""
	case "Group":
		return "/groups/" + id + "/"
	case "GroupPermissionEntry":
		return "/groups/" + parentID(obj, "group", ancestors, "Group") + "/permissions/" + id + "/"
	case "AccessRequest":
		return "/groups/" + parentID(obj, "group", ancestors, "Group") + "/access-requests/" + id + "/"
	case "DatasetAccessRequest":
		return "/items/" + itemRef("items", idOf(obj, "datasetID")) + "/access-requests/" + id + "/"
	case "DatasetPermission":
		c, ref := dataset()
		return "/" + c + "/" + ref + "/permissions/" + idOf(obj, "key") + "/"
	case "Service":
		c, ref := dataset()
		return "/" + c + "/" + ref + "/services/" + id + "/"
	case "MetadataDocument":
		if obj["datasetKind"] == "datasource" {
			if d := nearest(ancestors, "Datasource"); d != nil {
				return "/sources/" + fmt.Sprint(d["sourceID"]) + "/datasources/" + idOf(obj, "datasetID") + "/metadata/"
			}
			return ""
		}
		c, ref := dataset()
		return "/" + c + "/" + ref + "/versions/" + idOf(obj, "versionID") + "/metadata/"
	case "CatalogItemGeotag":
		return "/items/" + itemRef("items", idOf(obj, "itemID")) + "/geotags/" + id + "/"
	case "Feedback":
		return "/comments/" + id + "/"
	case "FeedbackRecord":
		if f := nearest(ancestors, "Feedback"); f != nil {
			return "/comments/" + fmt.Sprint(f["id"]) + "/"
		}
	case "TicketedObject":
		c := collections[fmt.Sprint(obj["type"])]
		return "/" + c + "/" + itemRef(c, id) + "/"
	case "Token":
		return "/tokens/" + id + "/"
	case "OAuthClient":
		return "/oauth-clients/" + id + "/"
	case "WebhookEndpoint":
		return "/webhooks/" + id + "/"
	case "WebhookDelivery":
		return "/webhooks/" + idOf(obj, "endpointId") + "/deliveries/"
	case "Export":
		return "/exports/" + id + "/"
	case "Notification":
		return "/notifications/"
	case "PublishGroup":
		return "/publish/" + id + "/"
	case "AuditEntry":
		// The page of the audit log that starts at the entry: it holds
		// the entry only when the caller may read it (restShows).
		n, _ := strconv.Atoi(id)
		return fmt.Sprintf("/audit/?after=%d&page_size=1", n+1)
	case "License":
		return "/licenses/" + id + "/"
	case "ExternalServiceTemplate":
		return "/site/external-service-templates/" + id + "/"
	case "CropLayer":
		return "/exports/croplayers/" + id + "/"
	case "CropFeature":
		return "/exports/croplayers/" + idOf(obj, "cropLayerID") + "/cropfeatures/" + id + "/"
	}
	return ""
}

// restShows: parts listed in their parent's REST answer must appear
// there (a feedback record among its feedback's updates, a notification
// among the caller's).
var restShows = map[string]bool{"FeedbackRecord": true, "Notification": true, "WebhookDelivery": true, "AuditEntry": true}

// checkRead fails when obj shows the caller something REST refuses them.
func (m *gqlMatrix) checkRead(t *testing.T, caller string, obj map[string]any, path string, ancestors []map[string]any) {
	t.Helper()
	key := m.f.keys[caller]
	tn, _ := obj["__typename"].(string)
	id := fmt.Sprint(obj["id"])
	if obj["id"] == nil {
		return
	}
	// Secrets inside objects the caller may read.
	switch tn {
	case "User":
		if em, _ := obj["email"].(string); em != "" && !m.o.reads(t, key, "/users/"+id+"/") {
			m.reportAt(t, path, "%s reads the e-mail of user %s; GET /users/%s/ refuses them", caller, id, id)
		}
	case "Source":
		if u, _ := obj["urlRemote"].(string); u != "" && !m.mayEditSource(t, caller, id) {
			m.reportAt(t, path, "%s reads the URL of source %s without edit", caller, id)
		}
	case "Datasource":
		if p, _ := obj["path"].(string); p != "" && !m.o.reads(t, key, "/sources/"+idOf(obj, "sourceID")+"/") {
			m.reportAt(t, path, "%s reads the path %q of datasource %s; GET of its source refuses them", caller, p, id)
		}
	}
	if _, ok := publicByName[tn]; ok {
		return
	}
	url := restURL(obj, ancestors)
	if url == "" {
		if tn != "Datasource" {
			m.reportAt(t, path, "no REST oracle for type %s: add it to restURL", tn)
		}
		return
	}
	if !m.o.reads(t, key, url) && !m.ownRequest(t, key, tn, id, url) {
		m.reportAt(t, path, "%s reads %s %s; GET %s refuses them", caller, tn, id, url)
		return
	}
	if restShows[tn] {
		r := m.f.e.Do(t, servertest.Request{Path: url, Key: key})
		if !strings.Contains(string(r.Body), `"id":`+id+`,`) && !strings.Contains(string(r.Body), `"id":`+id+`}`) {
			m.reportAt(t, path, "%s reads %s %s; GET %s does not show it to them", caller, tn, id, url)
		}
	}
}

// mayEditSource: a source's URL is for its editors; the oracle is GET
// /sources/{id}/ answering the caller with the URL in it.
func (m *gqlMatrix) mayEditSource(t *testing.T, caller, id string) bool {
	r := m.f.e.Do(t, servertest.Request{Path: "/sources/" + id + "/", Key: m.f.keys[caller]})
	return r.Status == http.StatusOK && strings.Contains(string(r.Body), "secret.example.com")
}

// reportAt fails once per distinct finding, naming the first field path
// that showed it.
func (m *gqlMatrix) reportAt(t *testing.T, path, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen[msg] {
		return
	}
	m.seen[msg] = true
	t.Errorf("%s (first at %s)", msg, path)
}

// ownRequest: a caller reads their own access request at the
// request-access URL of its group or item.
func (m *gqlMatrix) ownRequest(t *testing.T, key, typename, id, url string) bool {
	i := strings.Index(url, "access-requests/")
	if (typename != "AccessRequest" && typename != "DatasetAccessRequest") || i < 0 || key == "" {
		return false
	}
	r := m.f.e.Do(t, servertest.Request{Path: url[:i] + "request-access/", Key: key})
	return r.Status == http.StatusOK && strings.Contains(string(r.Body), `"id":`+id+`,`)
}
