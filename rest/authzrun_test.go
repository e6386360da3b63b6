package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/server/servertest"
)

// rule says who may call one route, on which fixture objects, with what.
type rule struct {
	kind    string   // the fixture objects that fill the path; "" for none
	targets []target // the paths to call, each with who may call it
	// body is the request body an allowed caller sends (refused callers
	// send the same); nil for none.
	body   func(f *fixtures, o *object, r role) any
	header map[string]string
	// ok are the statuses besides 2xx that allowed callers may get, and
	// refused those besides 401, 403 and 404 that refused callers may get;
	// each rule that sets them says why.
	ok, refused []int
	// last > 0 marks a call that consumes its object (a delete, a
	// publish): such rules run after all others, in ascending last, and
	// only the least trusted allowed role makes the call.
	last int
	// inBody rules name their object in the body, not the path: a 403
	// is about the path's object then, which the caller may know.
	inBody bool
	// after records what an allowed call created (a new draft).
	after func(o *object, resp *servertest.Response)
	// read marks a POST that changes nothing (a WFS XML request): it is
	// checked as a read, without the table fingerprints of writes.
	read bool
	// plain rules' routes take no Expand header (the data services):
	// their reads are made once, not again with each expansion.
	plain bool
	// check, when set, checks each answer further: what a list shows
	// the caller.
	check func(t *testing.T, f *fixtures, o *object, path string, ro role, resp *servertest.Response)
}

// target is one path of a rule with who may call it.
type target struct {
	path string
	need need
}

// need is who may call: anyone (the zero value), signed-in users, site
// administrators only, roles holding at least lv on the object, or nobody.
type need struct {
	lv     level
	user   bool
	site   bool
	nobody bool
}

var (
	anyone    = need{}
	signedIn  = need{user: true}
	siteOnly  = need{user: true, site: true}
	canView   = need{lv: lvView}
	canDown   = need{lv: lvDownload}
	canEdit   = need{user: true, lv: lvEdit}
	canAdmin  = need{user: true, lv: lvAdmin}
	userViews = need{user: true, lv: lvView}
	nobody    = need{nobody: true}
)

// allows reports whether role r may make the call on o.
func (n need) allows(r role, o *object) bool {
	switch {
	case n.nobody:
		return false
	case n.site:
		return r == siteAdmin
	case n.user && r == anonymous:
		return false
	case n.lv > lvNone:
		return o != nil && o.levels[r] >= n.lv
	}
	return true
}

var placeholderRE = regexp.MustCompile(`\{([a-z0-9.]+)\}`)

// fill replaces {name} in path by the object's variable or the
// fixtures' (the spare user's id as {spare}).
func (f *fixtures) fill(t *testing.T, path string, o *object) string {
	if t != nil {
		t.Helper()
	}
	return placeholderRE.ReplaceAllStringFunc(path, func(m string) string {
		name := m[1 : len(m)-1]
		if o != nil {
			if v, ok := o.vars[name]; ok {
				return v
			}
		}
		if v, ok := f.vars[name]; ok {
			return v
		}
		if t == nil {
			panic("path " + path + ": no value for " + m)
		}
		t.Fatalf("path %s: no value for %s", path, m)
		return ""
	})
}

// call makes one request as role r (or with key, when set) and checks what
// holds for every answer: no 500, no secret r may not see.
func (f *fixtures) call(t *testing.T, method, path string, r role, key string, body any, header map[string]string) *servertest.Response {
	t.Helper()
	if key == "" {
		key = f.key(r)
	}
	path, key = keyInPath(path, key)
	resp := f.e.Do(t, req{Method: method, Path: path, Key: key, Body: body, Header: header})
	if resp.Status >= 500 {
		t.Errorf("%s %s as %s: %d %s", method, path, r, resp.Status, resp.Body)
	}
	f.calls++
	if msg, checked := totalMismatch(resp); msg != "" {
		t.Errorf("LEAK: %s %s as %s: %s", method, path, r, msg)
	} else if checked {
		f.totals++
	}
	for _, s := range f.secrets {
		if !bytes.Contains(resp.Body, []byte(s.text)) {
			continue
		}
		if !s.may(r) {
			t.Errorf("LEAK: %s %s as %s: the answer (%d) holds %q: %s", method, path, r, resp.Status, s.text, resp.Body)
		}
		f.shown[s.text]++
	}
	return resp
}

// keyInPath puts the key where path asks for it with {key} (?key={key},
// /services;key={key}/), to be sent there instead of in the Authorization
// header; without a key, the parameter is left out.
func keyInPath(path, key string) (string, string) {
	if !strings.Contains(path, "{key}") {
		return path, key
	}
	if key != "" {
		return strings.ReplaceAll(path, "{key}", url.PathEscape(key)), ""
	}
	return strings.NewReplacer(";key={key}", "", "?key={key}&", "?", "&key={key}", "", "?key={key}", "").Replace(path), ""
}

// refused are the answers a refused caller may get, besides those its
// rule adds.
var refused = []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound}

// runRule runs a rule's calls on each of its objects.
func (f *fixtures) runRule(t *testing.T, method string, r rule) {
	objects := f.objects[r.kind]
	if r.kind == "" {
		objects = []*object{nil}
	}
	for _, o := range objects {
		for _, tg := range r.targets {
			name := "all"
			if o != nil {
				name = o.name
			}
			if len(r.targets) > 1 {
				name += "/" + targetLabel(tg.path)
			}
			t.Run(name, func(t *testing.T) { f.runTarget(t, method, r, tg, o) })
		}
	}
}

// targetLabel names a target by its placeholders other than the
// object's id: draft, other.draft.
func targetLabel(path string) string {
	var names []string
	for _, m := range placeholderRE.FindAllStringSubmatch(path, -1) {
		if m[1] != "id" && m[1] != "origin" {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		return "plain"
	}
	return strings.Join(names, ",")
}

func (f *fixtures) runTarget(t *testing.T, method string, r rule, tg target, o *object) {
	c := &targetCall{method: method, path: f.fill(t, tg.path, o), r: r, tg: tg, o: o, headers: headerSets(method, r.header)}
	if r.plain {
		c.headers = c.headers[:1]
	}
	write := method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions && !r.read
	var before map[string]string
	if write {
		settle(t, f.e)
		before = fingerprint(t, f.e)
	}
	scope := f.refusedCalls(t, c)
	// Dead keys authenticate nobody, even to routes anyone may call.
	for name, key := range f.deadKeys {
		if resp := f.call(t, method, c.path, anonymous, key, c.body(f, anonymous), r.header); resp.Status != http.StatusUnauthorized {
			t.Errorf("%s %s with the %s key: %d, want 401: %s", method, c.path, name, resp.Status, resp.Body)
		}
	}
	if write {
		f.wrongScopeRefused(t, method, c.path, scope, c.body(f, siteAdmin), r.header)
		if changed := changedTables(before, fingerprint(t, f.e)); len(changed) > 0 {
			t.Errorf("UNAUTHORIZED WRITE: %s %s: refused calls changed %v", method, c.path, changed)
		}
	}
	order := roles
	if r.plain {
		// The data services remember access decisions and cache tiles:
		// the most trusted call first, and the refused calls again after
		// the allowed ones, so that nothing remembered for one caller
		// serves another.
		order = slices.Clone(roles)
		slices.Reverse(order)
	}
	if s := f.allowedCalls(t, c, order); scope == "" {
		scope = s
	}
	if r.plain {
		f.refusedCalls(t, c)
	}
	if !write {
		f.wrongScopeRefused(t, method, c.path, scope, c.body(f, siteAdmin), r.header)
	}
}

// targetCall is one target of a rule on one object, being called.
type targetCall struct {
	method, path string
	r            rule
	tg           target
	o            *object
	headers      []map[string]string
}

// body is the request body role ro sends.
func (c *targetCall) body(f *fixtures, ro role) any {
	if c.r.body == nil {
		return nil
	}
	return c.r.body(f, c.o, ro)
}

// refusedCalls makes the call as each role the target refuses and
// returns the scope the answers name.
func (f *fixtures) refusedCalls(t *testing.T, c *targetCall) (scope string) {
	t.Helper()
	method, path, r, o := c.method, c.path, c.r, c.o
	for _, h := range c.headers {
		for _, ro := range roles {
			if c.tg.need.allows(ro, o) {
				continue
			}
			resp := f.call(t, method, path, ro, "", c.body(f, ro), h)
			if r.check != nil {
				r.check(t, f, o, path, ro, resp)
			}
			scope = resp.Header.Get("Accepted-OAuth-Scopes")
			if want := slices.Concat(refused, r.refused); !slices.Contains(want, resp.Status) {
				t.Errorf("%s %s %v as %s: %d, want one of %v (refused): %s", method, path, h, ro, resp.Status, want, resp.Body)
			}
			if o != nil && o.hidden && !r.inBody && o.levels[ro] == lvNone && resp.Status == http.StatusForbidden {
				t.Errorf("%s %s %v as %s: 403 tells that %s exists to one who holds nothing on it; want 404: %s", method, path, h, ro, o.name, resp.Body)
			}
		}
	}
	return scope
}

// allowedCalls makes the call as each role the target allows, in order
// (only the first for a consuming rule), and returns the scope the first
// answer names.
func (f *fixtures) allowedCalls(t *testing.T, c *targetCall, order []role) (scope string) {
	t.Helper()
	method, path, r, o := c.method, c.path, c.r, c.o
	for _, h := range c.headers {
		for _, ro := range order {
			if !c.tg.need.allows(ro, o) {
				continue
			}
			resp := f.call(t, method, path, ro, "", c.body(f, ro), h)
			if r.check != nil {
				r.check(t, f, o, path, ro, resp)
			}
			if (resp.Status < 200 || resp.Status > 299) && !slices.Contains(r.ok, resp.Status) {
				t.Errorf("%s %s %v as %s: %d, want 2xx (allowed): %s", method, path, h, ro, resp.Status, resp.Body)
			}
			if r.after != nil && resp.Status < 300 {
				r.after(o, resp)
			}
			if scope == "" {
				scope = resp.Header.Get("Accepted-OAuth-Scopes")
			}
			if r.last > 0 {
				break
			}
		}
	}
	return scope
}

// expansions are the Expand headers reads are also made with: every
// expansion a list or a detail view offers (views ignore names they do not
// offer), since an expansion inlines related objects in place of URLs.
var expansions = []string{"list,list.permissions", "permissions,items"}

// headerSets are the headers a call is made with: the rule's, and for
// reads the rule's with each of the expansions.
func headerSets(method string, h map[string]string) []map[string]string {
	out := []map[string]string{h}
	if method != http.MethodGet {
		return out
	}
	for _, ex := range expansions {
		with := map[string]string{"Expand": ex}
		for k, v := range h {
			with[k] = v
		}
		out = append(out, with)
	}
	return out
}

// wrongScopeRefused checks that a token without the route's scope is
// refused with a 401 naming it, even a site administrator's.
func (f *fixtures) wrongScopeRefused(t *testing.T, method, path, scope string, body any, header map[string]string) {
	t.Helper()
	if scope == "" || scope == "*" || method == http.MethodOptions {
		return
	}
	wrong := f.wrongScope["tiles"]
	if scope == "tiles" {
		wrong = f.wrongScope["query"]
	}
	resp := f.call(t, method, path, siteAdmin, wrong, body, header)
	named := strings.Contains(string(resp.Body), scope) || method == http.MethodHead // a HEAD answer has no body
	if resp.Status != http.StatusUnauthorized || !named {
		t.Errorf("%s %s with a token without %s: %d %s, want 401 naming the scope", method, path, scope, resp.Status, resp.Body)
	}
}

// num is the number s holds; the fixtures only hold numbers where it is
// called.
func num(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic("not a number: " + s)
	}
	return n
}

// totalMismatch reports a list whose X-Resource-Range total is not the
// number of items it shows, when it shows them all on one page: a total
// that counts the objects the caller may not see tells how many there are.
// It reports whether it could check.
func totalMismatch(resp *servertest.Response) (string, bool) {
	rng := resp.Header.Get("X-Resource-Range")
	if rng == "" || resp.Status != http.StatusOK {
		return "", false
	}
	var start, end, total int
	if _, err := fmt.Sscanf(rng, "%d-%d/%d", &start, &end, &total); err != nil {
		return fmt.Sprintf("X-Resource-Range %q is not start-end/total", rng), true
	}
	var items []json.RawMessage
	if json.Unmarshal(resp.Body, &items) != nil || start != 0 || total > 100 {
		return "", false
	}
	if total != len(items) {
		return fmt.Sprintf("X-Resource-Range %q counts %d items, the list shows %d", rng, total, len(items)), true
	}
	return "", true
}
