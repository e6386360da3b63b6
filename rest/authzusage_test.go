package rest_test

// usageRules: a dataset's usage figures are read by those who may edit
// it (and site administrators); a token's by its owner (the tokens
// fixture's canView is its owner, as for GET /tokens/{tid}/).
func usageRules(rules map[string]rule) {
	for _, c := range collections {
		one := "/" + c.name + "/{" + c.shared + "}/usage"
		p := "/" + c.name + "/{id}/usage/"
		rules["GET "+one] = rule{kind: c.name, targets: []target{{p, canEdit}, {p + "?from=2026-01-01&to=2026-01-31", canEdit}}}
	}
	rules["GET /tokens/{tid}/usage"] = rule{kind: "tokens", targets: []target{{"/tokens/{id}/usage/", canView}}}
}
