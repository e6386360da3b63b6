package oauthpages

import (
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"net/url"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/oauthserver"
)

// The consent form's fields besides the request's own parameters.
const (
	fieldCSRF     = "csrf_token"
	fieldDecision = "decision"
)

// requestOf reads the authorization request's parameters from a query
// or a posted form.
func requestOf(v url.Values) oauthserver.AuthorizeRequest {
	return oauthserver.AuthorizeRequest{
		ResponseType: v.Get("response_type"), ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"),
		Scope: v.Get("scope"), State: v.Get("state"), CodeChallenge: v.Get("code_challenge"),
		CodeChallengeMethod: v.Get("code_challenge_method"), ResponseMode: v.Get("response_mode"),
	}
}

// authorize is GET /o/authorize/: check the request, send visitors
// without a session to sign in first, and ask the signed-in user.
func (p *Pages) authorize(w http.ResponseWriter, r *http.Request) {
	a, ok := p.check(w, r, r.URL.Query())
	if !ok {
		return
	}
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	if sess == nil {
		http.Redirect(w, r, signIn(r.URL.RequestURI()), http.StatusFound)
		return
	}
	p.page(w, r, http.StatusOK, consentPage(a, sess, r.URL.Query()), a.RedirectURI)
}

// session is the signed-in session of r (nil without one); false when it
// could not be read, the error page written.
func (p *Pages) session(w http.ResponseWriter, r *http.Request) (*ent.Session, bool) {
	sess, err := p.auth.SessionOf(r.Context(), r)
	if err != nil {
		p.page(w, r, http.StatusInternalServerError, errorPage("The server could not read your session.", ""), "")
		return nil, false
	}
	return sess, true
}

// signIn is the sign-in page's URL that comes back to next (a path on
// this site) once signed in.
func signIn(next string) string {
	return SignInPath + "?" + url.Values{"next": {next}}.Encode()
}

// consent is POST /o/authorize/: the consent form's Allow or Deny, with
// the session's CSRF token as a field.
func (p *Pages) consent(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		p.page(w, r, http.StatusBadRequest, errorPage("The form could not be read.", ""), "")
		return
	}
	f := r.PostForm
	a, ok := p.check(w, r, f)
	if !ok {
		return
	}
	sess, ok := p.session(w, r)
	if !ok {
		return
	}
	if sess == nil {
		q := url.Values{}
		for k := range f {
			if k != fieldCSRF && k != fieldDecision {
				q.Set(k, f.Get(k))
			}
		}
		http.Redirect(w, r, signIn(r.URL.Path+"?"+q.Encode()), http.StatusSeeOther)
		return
	}
	if subtle.ConstantTimeCompare([]byte(f.Get(fieldCSRF)), []byte(sess.CsrfToken)) != 1 {
		p.page(w, r, http.StatusForbidden, errorPage("The form has expired or did not come from this site. Go back to the application and start again.", ""), "")
		return
	}
	switch f.Get(fieldDecision) {
	case "allow":
		to, err := p.svc.Approve(r.Context(), sess, a)
		if err != nil {
			p.page(w, r, http.StatusInternalServerError, errorPage("The server could not record your answer.", ""), "")
			return
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
	case "deny":
		http.Redirect(w, r, a.Deny(), http.StatusSeeOther)
	default:
		p.page(w, r, http.StatusBadRequest, errorPage("Choose Allow or Deny.", ""), "")
	}
}

// check validates the request, answering its errors: to the client by
// redirect when its redirect URI is known good, else on a page.
func (p *Pages) check(w http.ResponseWriter, r *http.Request, v url.Values) (*oauthserver.Authorization, bool) {
	a, err := p.svc.CheckAuthorization(r.Context(), requestOf(v))
	if err == nil {
		return a, true
	}
	var ae *oauthserver.AuthorizeError
	if !errors.As(err, &ae) {
		oe := oauthserver.AsError(err)
		ae = &oauthserver.AuthorizeError{Code: oe.Code, Description: oe.Description}
	}
	switch {
	case ae.Code == oauthserver.ErrServerError:
		p.logger.ErrorContext(r.Context(), "authorization request failed", "err", err)
		p.page(w, r, http.StatusInternalServerError, errorPage("The server could not check this request.", ""), "")
	case ae.RedirectURI != "":
		http.Redirect(w, r, ae.RedirectTo(), http.StatusFound)
	default:
		p.page(w, r, http.StatusBadRequest, errorPage(ae.Description, ae.Code), "")
	}
	return nil, false
}

// scopeLine is one scope on the consent page.
type scopeLine struct{ Name, Words string }

// view is what the page template shows.
type view struct {
	Title   string
	Error   string
	Code    string
	Client  string
	User    string
	Scopes  []scopeLine
	Hidden  map[string]string
	CSRF    string
	Sending string
}

func errorPage(msg, code string) view {
	return view{Title: "Authorization failed", Error: msg, Code: code}
}

func consentPage(a *oauthserver.Authorization, sess *ent.Session, q url.Values) view {
	v := view{Title: "Allow " + a.Client.Name + "?", Client: a.Client.Name, CSRF: sess.CsrfToken, Hidden: map[string]string{}}
	if u := sess.Edges.User; u != nil {
		v.User = u.Email
	}
	for _, sc := range a.Scope {
		v.Scopes = append(v.Scopes, scopeLine{Name: sc, Words: oauthserver.ScopeDescription(sc)})
	}
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "response_mode"} {
		if q.Has(k) {
			v.Hidden[k] = q.Get(k)
		}
	}
	if u, err := url.Parse(a.RedirectURI); err == nil {
		v.Sending = u.Scheme + "://" + u.Host
	}
	return v
}

// page writes an HTML page. Its policy lets the form post here and be
// redirected to the client's redirect URI (formAction), nothing else;
// no framing, no scripts.
func (p *Pages) page(w http.ResponseWriter, r *http.Request, status int, v view, formAction string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	csp := "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
	if u, err := url.Parse(formAction); err == nil && formAction != "" {
		if u.Scheme == "http" || u.Scheme == "https" {
			csp += " " + u.Scheme + "://" + u.Host
		} else {
			csp += " " + u.Scheme + ":"
		}
	}
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := pageTmpl.Execute(w, v); err != nil {
		p.logger.ErrorContext(r.Context(), "writing the consent page failed", "err", err)
	}
}

var pageTmpl = template.Must(template.New("oauth").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1b; }
li { margin: .5rem 0; } code { background: #f1f1f1; padding: 0 .2rem; }
.actions { display: flex; gap: 1rem; margin-top: 1.5rem; }
button { font-size: 1rem; padding: .5rem 1.5rem; }
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
{{if .Error}}
<p role="alert">{{.Error}}</p>
{{if .Code}}<p>Error: <code>{{.Code}}</code></p>{{end}}
{{else}}
<p><strong>{{.Client}}</strong> asks to use your Geopub account{{if .User}} (<strong>{{.User}}</strong>){{end}}. If you allow it, it may:</p>
<ul>
{{range .Scopes}}<li><code>{{.Name}}</code>: {{.Words}}</li>
{{end}}</ul>
<p>It never gets more than your account may do. You can revoke its access by deleting its tokens. Your answer goes to <code>{{.Sending}}</code>.</p>
<form method="post" action="/o/authorize/">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<input type="hidden" name="csrf_token" value="{{.CSRF}}">
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
{{end}}
</main>
</body>
</html>
`))
