package graph

// signInProviders lists the configured single sign-on providers; there is
// nothing secret in them, so anyone may read them.
func (r *Resolver) signInProviders() []*SignInProvider {
	ps := r.SSO.Providers()
	out := make([]*SignInProvider, len(ps))
	for i, p := range ps {
		out[i] = &SignInProvider{Name: p.Name, Title: p.Title, StartPath: p.StartPath}
	}
	return out
}
