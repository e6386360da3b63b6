package rest_test

// catalogRules: the catalogue lists answer everyone (each caller sees
// what the engine's live permission rule lets them: the matrix's leak
// checks run on every answer); the caller's own data needs a signed-in
// user.
func catalogRules(rules map[string]rule) {
	rules["GET /data"] = rule{targets: []target{{"/data/", anyone}, {"/data/?facets=true", anyone}}}
	rules["GET /data/latest"] = rule{targets: []target{{"/data/latest/", anyone}, {"/data/latest/?facets=true", anyone}}}
	rules["GET /users/me/data"] = rule{targets: []target{{"/users/me/data/", signedIn}}}
}
