package rest_test

// ssoRules: the single sign-on providers are listed to anyone, as the
// sign-in page lists them.
func ssoRules(rules map[string]rule) {
	rules["GET /session/providers"] = rule{targets: []target{{"/session/providers/", anyone}}}
}
