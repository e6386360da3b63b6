package rest

import "net/http"

// signInProviderJSON is a single sign-on provider as API clients see it.
type signInProviderJSON struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// StartURL is where a browser goes to sign in with the provider; add
	// ?next=/local/path to come back there.
	StartURL string `json:"start_url"`
}

// signInProviders lists the OpenID Connect providers (anyone may).
func (a *API) signInProviders(w http.ResponseWriter, r *http.Request) error {
	ps, err := a.res.Query().SignInProviders(r.Context())
	if err != nil {
		return err
	}
	origin := a.links(r).origin
	out := make([]signInProviderJSON, len(ps))
	for i, p := range ps {
		out[i] = signInProviderJSON{Name: p.Name, Title: p.Title, StartURL: origin + p.StartPath}
	}
	return writeList(a, w, r, out)
}
