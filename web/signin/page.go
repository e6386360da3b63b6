package signin

import (
	"embed"
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/sso"
)

//go:embed templates/signin.html
var files embed.FS

var pageTmpl = template.Must(template.ParseFS(files, "templates/signin.html"))

// csp allows the page's own inline style and forms posting to this site;
// the page runs no script.
const csp = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// view is what the page shows.
type view struct {
	// SignedIn is the signed-in user's e-mail address, "" for anonymous.
	SignedIn string
	Next     string
	// Action is where the password form posts (this page, with next).
	Action    string
	Providers []button
	Error     string
}

type button struct {
	Title, Href string
}

// page shows the sign-in page.
func (d *Door) page(w http.ResponseWriter, r *http.Request) {
	d.render(w, r, http.StatusOK, sso.SafeNext(r.URL.Query().Get("next")), "")
}

// render writes the page with status and, when set, an error message.
func (d *Door) render(w http.ResponseWriter, r *http.Request, status int, next, msg string) {
	v := view{Next: next, Error: msg, Action: Path + "?" + url.Values{"next": {next}}.Encode()}
	if p := auth.FromContext(r.Context()); p.User != nil {
		v.SignedIn = p.User.Email
	}
	for _, p := range d.sso.Providers() {
		v.Providers = append(v.Providers, button{Title: p.Title,
			Href: p.StartPath + "?" + url.Values{"next": {next}}.Encode()})
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	if err := pageTmpl.ExecuteTemplate(w, "signin.html", v); err != nil {
		d.logger.ErrorContext(r.Context(), "writing the sign-in page failed", "err", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
