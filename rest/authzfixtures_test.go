package rest_test

import (
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/search/searchtest"
	"github.com/geopub/geopub/internal/server/servertest"
)

// role is a caller of the authorization matrix, from least to most
// trusted. Dataset and group grants make the middle five mean what their
// names say on every fixture object.
type role int

const (
	anonymous  role = iota
	outsider        // signed in, no grant, no membership
	viewer          // view grant; plain member of the groups
	downloader      // download grant; edit_data in the groups
	editor          // edit grant; edit_users in the groups
	owner           // admin grant (the creator); admin in the groups
	siteAdmin
)

var roles = []role{anonymous, outsider, viewer, downloader, editor, owner, siteAdmin}

func (r role) String() string {
	return [...]string{"anonymous", "outsider", "viewer", "downloader", "editor", "admin", "siteadmin"}[r]
}

// level is what a role holds on one fixture object.
type level int

const (
	lvNone level = iota
	lvView
	lvDownload
	lvEdit
	lvAdmin
)

// object is one fixture: what fills a route's path and who holds what on
// it.
type object struct {
	name   string            // subtest name: layers/private
	vars   map[string]string // path placeholders: {id}, {draft}, ...
	levels [7]level          // by role
	// hidden objects are not known to those who hold nothing on them:
	// they get 404 (or 401), never a 403 that tells the object exists.
	hidden bool
}

// secret is text only some roles may ever see in a response body.
type secret struct {
	text string
	may  func(role) bool
}

// fixtures are the callers and objects of the matrix, built once per
// backend.
type fixtures struct {
	e       *env
	users   [7]*user // anonymous is nil
	spare   *user    // holds a grant and a membership the writes may change
	joiner  *user    // has an access request to each group and item
	joiner2 *user    // has another, for the approvals
	signin  *user    // signs in with a password
	objects map[string][]*object
	secrets []secret
	iso     string // an ISO 19139 metadata document
	// vars fill the path placeholders no object has.
	vars map[string]string
	// wrongScope are site administrator tokens with one scope each.
	wrongScope map[string]string
	// deadKeys are keys of full scope that must authenticate nobody: a
	// locked site administrator's, an expired one of a site administrator.
	deadKeys map[string]string
	// calls counts the requests made; shown counts the answers that held
	// each secret (to those who may see it).
	calls  int
	shown  map[string]int
	totals int // lists whose total was checked
}

// key is the token of role r ("" for anonymous).
func (f *fixtures) key(r role) string {
	if u := f.users[r]; u != nil {
		return u.Key
	}
	return ""
}

// datasetLevels are the levels on a dataset with the matrix's grants:
// public ones give everyone download.
func datasetLevels(public bool) [7]level {
	l := [7]level{lvNone, lvNone, lvView, lvDownload, lvEdit, lvAdmin, lvAdmin}
	if public {
		for _, r := range []role{anonymous, outsider, viewer} {
			l[r] = lvDownload
		}
	}
	return l
}

// readers lists who may read at least lv on an object.
func readers(l [7]level, lv level) func(role) bool {
	return func(r role) bool { return l[r] >= lv }
}

func newFixtures(t *testing.T, e *env) *fixtures {
	t.Helper()
	f := &fixtures{e: e, objects: map[string][]*object{}, iso: xmlFixture(t, "iso19139.xml"), shown: map[string]int{}}
	for _, r := range roles[1:] {
		var opts []servertest.UserOption
		if r == siteAdmin {
			opts = append(opts, servertest.SiteAdmin)
		}
		f.users[r] = e.NewUser(t, "Matrix"+strings.ToUpper(r.String()[:1])+r.String()[1:], opts...)
	}
	f.spare, f.joiner, f.joiner2 = e.NewUser(t, "MatrixSpare"), e.NewUser(t, "MatrixJoiner"), e.NewUser(t, "MatrixJoinerTwo")
	f.signin = e.NewUser(t, "MatrixSignin")
	// {key} stays in the path: each call puts its key there (keyInPath).
	f.vars = map[string]string{"spare": itoa(f.spare.ID), "origin": e.HTTP.URL, "key": "{key}"}
	// A key is its holder's: no answer shows it to anyone else.
	for _, r := range roles[1:] {
		f.secrets = append(f.secrets, secret{f.users[r].Key, func(x role) bool { return x == r }})
	}
	f.wrongScope = map[string]string{}
	for _, s := range []string{"tiles", "query"} {
		f.wrongScope[s] = e.Token(t, f.users[siteAdmin].User, s)
	}
	f.addDeadKeys(t)
	f.enableExternalServices(t)
	f.secrets = append(f.secrets,
		secret{f.users[outsider].Email, func(r role) bool { return r == outsider || r == siteAdmin }})
	for _, public := range []bool{false, true} {
		f.addDatasets(t, public)
	}
	f.addCrossLinks(t)
	f.addGroups(t)
	f.addAccountObjects(t)
	f.addExports(t)
	f.pairTwins()
	f.addReferenceItem(t)
	f.addCropLayer(t)
	f.addOAuthClient(t)
	f.addServiceOwners(t)
	f.addDataTableOwners(t)
	// The catalogue's index, as the search feed keeps it: /data/ and the
	// explore sections answer with the fixtures, and the leak checks see
	// them.
	searchtest.Index(t, e.Store, nil)
	return f
}

// vis names a fixture's visibility.
func vis(public bool) string {
	if public {
		return "public"
	}
	return "private"
}
