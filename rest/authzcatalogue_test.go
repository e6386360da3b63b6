package rest_test

// catalogueRules: licences and categories are public reference data that
// every caller may read, anonymous included.
func catalogueRules(rules map[string]rule) {
	rules["GET /licenses"] = rule{targets: []target{{"/licenses/", anyone}}}
	rules["GET /licenses/{lid}"] = rule{targets: []target{{"/licenses/1/", anyone}}}
	rules["GET /licenses/{lid}/fulltext"] = rule{targets: []target{{"/licenses/1/fulltext/", anyone}}}
	rules["GET /licenses/{slug}"] = rule{targets: []target{{"/licenses/cc-by-nc//", anyone}, {"/licenses/cc-by-sa/", anyone}}}
	rules["GET /licenses/{slug}/{jurisdiction}"] = rule{targets: []target{{"/licenses/cc-by-nc-sa/nz/", anyone}}}
	rules["GET /categories"] = rule{targets: []target{{"/categories/", anyone}}}
}
