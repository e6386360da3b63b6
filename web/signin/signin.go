// Package signin is the HTML sign-in door: the page at /signin/ (a
// password form and a button per single sign-on provider) and the browser
// side of OpenID Connect sign-in, /auth/oidc/{provider}/start and
// /auth/oidc/{provider}/callback. The rules are internal/sso's and
// internal/auth's; a sign-in of either kind starts the same cookie session
// (auth.Service.SignIn) and then goes to the page's ?next=, a path on
// this site.
package signin

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/forwarded"
	"github.com/geopub/geopub/internal/sso"
)

// Path is the sign-in page.
const Path = "/signin/"

// bindingCookie ties a sign-in under way to the browser that began it.
const bindingCookie = "geopub_oidc"

// Door serves the sign-in page and the OIDC browser routes.
type Door struct {
	auth    *auth.Service
	sso     *sso.Service // nil: no providers
	logger  *slog.Logger
	baseURL string
	secure  bool
}

// New returns the door. ssoSvc may be nil (password sign-in only);
// baseURL, when set, is the origin of callback URLs; secure marks the
// binding cookie Secure.
func New(a *auth.Service, ssoSvc *sso.Service, logger *slog.Logger, baseURL string, secure bool) *Door {
	return &Door{auth: a, sso: ssoSvc, logger: logger, baseURL: strings.TrimRight(baseURL, "/"), secure: secure}
}

// Routes mounts the door; r must run auth.Middleware (cookies are set
// through it).
func (d *Door) Routes(r chi.Router) {
	r.Get(Path, d.page)
	r.Post(Path, d.password)
	r.Get("/signin", func(w http.ResponseWriter, r *http.Request) {
		u := url.URL{Path: Path, RawQuery: r.URL.RawQuery}
		http.Redirect(w, r, u.String(), http.StatusMovedPermanently)
	})
	r.Get("/auth/oidc/{provider}/start", d.start)
	r.Get("/auth/oidc/{provider}/callback", d.callback)
}

// origin is the site's scheme://host.
func (d *Door) origin(r *http.Request) string {
	if d.baseURL != "" {
		return d.baseURL
	}
	return forwarded.Origin(r)
}

// start sends the browser to the provider.
func (d *Door) start(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "provider")
	begun, err := d.sso.Begin(r.Context(), name, d.origin(r)+sso.CallbackPath(name), r.URL.Query().Get("next"))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: bindingCookie, Value: begun.Binding, Path: "/auth/oidc/",
		MaxAge: int(sso.LoginTTL.Seconds()), HttpOnly: true, Secure: d.secure, SameSite: http.SameSiteLaxMode})
	noStore(w)
	http.Redirect(w, r, begun.AuthURL, http.StatusSeeOther)
}

// callback finishes the sign-in the provider sent the browser back from.
func (d *Door) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cb := sso.Callback{State: q.Get("state"), Code: q.Get("code"), Error: q.Get("error"),
		ErrorDescription: q.Get("error_description")}
	if c, err := r.Cookie(bindingCookie); err == nil {
		cb.Binding = c.Value
	}
	// The binding is single use, like the state.
	http.SetCookie(w, &http.Cookie{Name: bindingCookie, Path: "/auth/oidc/", MaxAge: -1,
		HttpOnly: true, Secure: d.secure, SameSite: http.SameSiteLaxMode})
	res, err := d.sso.Complete(r.Context(), chi.URLParam(r, "provider"), cb)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if _, err := d.auth.SignIn(r.Context(), res.User); err != nil {
		d.fail(w, r, err)
		return
	}
	noStore(w)
	http.Redirect(w, r, res.Next, http.StatusSeeOther)
}

// password is the page's form: the same check as POST /session, then the
// same session.
func (d *Door) password(w http.ResponseWriter, r *http.Request) {
	next := sso.SafeNext(r.URL.Query().Get("next"))
	if !sameOrigin(r, d.origin(r)) {
		d.render(w, r, http.StatusForbidden, next, "The sign-in form was sent from another site.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		d.render(w, r, http.StatusBadRequest, next, "The sign-in form could not be read.")
		return
	}
	if n := r.PostForm.Get("next"); n != "" {
		next = sso.SafeNext(n)
	}
	u, err := d.auth.PasswordGrant(r.Context(), r.PostForm.Get("email"), r.PostForm.Get("password"), auth.ClientAddrFrom(r.Context()))
	if err == nil {
		_, err = d.auth.SignIn(r.Context(), u)
	}
	if err != nil {
		e := apperr.As(err)
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", itoa(e.RetryAfter))
		}
		d.render(w, r, e.Code.HTTPStatus(), next, message(e))
		return
	}
	noStore(w)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// sameOrigin refuses a form posted by another site (login CSRF): the
// Origin header, when the browser sends one, must be this site's, and
// Sec-Fetch-Site must not say cross-site.
func sameOrigin(r *http.Request, origin string) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	o := r.Header.Get("Origin")
	return o == "" || o == origin || o == forwarded.Origin(r)
}

// fail shows why a sign-in did not happen, with the error's status (never
// 500 for what the provider or the browser sent).
func (d *Door) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := apperr.As(err)
	if e.Code == apperr.Internal {
		d.logger.ErrorContext(r.Context(), "sign-in failed", "path", r.URL.Path, "err", err)
	}
	d.render(w, r, e.Code.HTTPStatus(), "/", message(e))
}

// message is what the page says of e.
func message(e *apperr.Error) string {
	if e.Code == apperr.Internal {
		return "Signing in failed because of a problem on this site. Try again later."
	}
	if len(e.Fields) > 0 || e.Message == "" {
		return "Enter your e-mail address and password."
	}
	return e.Message
}

func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }
