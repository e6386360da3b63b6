package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Cookie names.
const (
	// SessionCookie carries the session value (HttpOnly).
	SessionCookie = "geopub_session"
	// CSRFCookie carries the session's CSRF token where scripts of the site
	// can read it (not HttpOnly), so a page reloaded after sign-in can still
	// send the X-CSRF-Token header. Reading it needs same-origin access, so
	// it does not help a cross-site attacker.
	CSRFCookie = "geopub_csrf"
)

var errNoHook = errors.New("auth: no response hook in context; is the request behind auth.Middleware?")

// SetSessionCookie adds the session cookie (HttpOnly, SameSite=Lax, Path=/,
// Secure when configured) to the response of the request behind ctx.
func SetSessionCookie(ctx context.Context, value string, expires time.Time) error {
	return setCookie(ctx, SessionCookie, value, expires, true)
}

// SetCSRFCookie adds the script-readable CSRF cookie to the response.
func SetCSRFCookie(ctx context.Context, token string, expires time.Time) error {
	return setCookie(ctx, CSRFCookie, token, expires, false)
}

// ClearSessionCookie tells the client to drop the session and CSRF cookies.
func ClearSessionCookie(ctx context.Context) error {
	if err := setCookie(ctx, SessionCookie, "", time.Time{}, true); err != nil {
		return err
	}
	return setCookie(ctx, CSRFCookie, "", time.Time{}, false)
}

// setCookie writes one cookie, replacing an earlier Set-Cookie of the same
// name in this response. A zero expires deletes the cookie.
func setCookie(ctx context.Context, name, value string, expires time.Time, httpOnly bool) error {
	h := requestFactsFrom(ctx)
	if h == nil {
		return internalErr(errNoHook)
	}
	c := &http.Cookie{
		Name: name, Value: value, Path: "/", Expires: expires,
		HttpOnly: httpOnly, Secure: h.secure, SameSite: http.SameSiteLaxMode,
	}
	if expires.IsZero() {
		c.MaxAge = -1
	}
	header := h.w.Header()
	var kept []string
	for _, v := range header.Values("Set-Cookie") {
		if !strings.HasPrefix(v, name+"=") {
			kept = append(kept, v)
		}
	}
	header["Set-Cookie"] = append(kept, c.String())
	return nil
}
