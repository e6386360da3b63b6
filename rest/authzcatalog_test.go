package rest_test

import "net/http"

// catalogRules: the catalogue lists answer everyone (each caller sees
// what the engine's live permission rule lets them: the matrix's leak
// checks run on every answer); the caller's own data needs a signed-in
// user.
func catalogRules(rules map[string]rule) {
	rules["GET /data"] = rule{targets: []target{{"/data/", anyone}, {"/data/?facets=true", anyone}}}
	// The catalogue's change feed: anyone, each seeing what they may.
	rules["GET /changes"] = rule{targets: []target{{"/changes/", anyone}, {"/changes/?format=atom", anyone}}}
	rules["GET /data/latest"] = rule{targets: []target{{"/data/latest/", anyone}, {"/data/latest/?facets=true", anyone}}}
	rules["GET /users/me/data"] = rule{targets: []target{{"/users/me/data/", signedIn}}}
	// Publishers and explore sections: everyone, each seeing the
	// publishers and datasets they may see. A user without a published
	// dataset is no publisher to anyone (404).
	rules["GET /publishers"] = rule{targets: []target{{"/publishers/", anyone}, {"/publishers/?facets=True", anyone}}}
	rules["GET /publishers/{pid}"] = rule{targets: []target{{"/publishers/user:{spare}/", anyone}}, ok: []int{http.StatusNotFound}}
	rules["GET /explore-sections"] = rule{targets: []target{{"/explore-sections/", anyone}}}
	rules["GET /explore-sections/{slug}"] = rule{targets: []target{
		{"/explore-sections/popular/", anyone}, {"/explore-sections/recent/", anyone},
		{"/explore-sections/browse/", anyone}, {"/explore-sections/publishers/", anyone}}}
}
