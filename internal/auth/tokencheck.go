package auth

import (
	"errors"
	"strings"
	"time"

	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/textrules"
)

// The checks of token settings shared by CreateToken and UpdateToken. Each
// records its messages in a FieldErrors so a client learns of every
// problem at once.

// checkTokenName trims a token name and records a message when it is too
// long for the column.
func checkTokenName(name string, fe apperr.FieldErrors) string {
	name = strings.TrimSpace(name)
	if err := textrules.Check("name", name); err != nil {
		addFieldErrors(fe, "name", err)
		return name
	}
	if len(name) > MaxTokenNameLength {
		fe.Add("name", "Ensure this field has no more than 200 characters.")
	}
	return name
}

// checkScope validates a requested scope string and returns it normalised
// (sorted, space-delimited).
func checkScope(scope string, fe apperr.FieldErrors) string {
	sc, err := ValidateScopes(scope)
	if err != nil {
		addFieldErrors(fe, "scope", err)
		return ""
	}
	return sc.String()
}

// checkExpiry requires an expiry, when given, to lie in the future; it
// returns it in UTC.
func checkExpiry(t *time.Time, now time.Time, fe apperr.FieldErrors) *time.Time {
	if t == nil {
		return nil
	}
	if !t.After(now) {
		fe.Add("expires_at", "The expiry date must be in the future.")
		return nil
	}
	u := t.UTC()
	return &u
}

// checkReferrers validates referrer rules, keeping nil as nil.
func checkReferrers(rules []string, fe apperr.FieldErrors) []string {
	if rules == nil {
		return nil
	}
	out, err := ValidateReferrers(rules)
	if err != nil {
		addFieldErrors(fe, "referrers", err)
	}
	return out
}

// addFieldErrors copies the per-field messages of a validation error into
// fe, filing any other error under field.
func addFieldErrors(fe apperr.FieldErrors, field string, err error) {
	var e *apperr.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		for f, msgs := range e.Fields {
			for _, m := range msgs {
				fe.Add(f, m)
			}
		}
		return
	}
	fe.Add(field, apperr.As(err).Message)
}
