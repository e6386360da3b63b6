package auth

import (
	"context"
	"math"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent/loginthrottle"
	"github.com/geopub/geopub/internal/apperr"
)

// Throttling of password guessing, kept in the database (LoginThrottle rows)
// so that every server process sharing it enforces the same limits:
//
//   - Attempts are counted per key: "email:<lower-cased address>" and
//     "addr:<client IP>". A key's window opens at its first counted attempt
//     and lasts cfg.FailureWindow; an attempt after the window has passed
//     starts a new window with a count of one.
//   - An attempt is counted before its password is checked (beginAttempt),
//     so a burst of parallel requests cannot slip past the limit while the
//     first ones are still hashing: at most cfg.MaxFailures attempts per
//     key and window get a password check. A success takes its count back.
//   - When a key reaches cfg.MaxFailures failures it is blocked for
//     cfg.FailureWindow from that moment. While any key of an attempt is
//     blocked the attempt is refused with 429 and Retry-After before the
//     password is looked at, so even the right password does not get in.
//   - A successful sign-in deletes the e-mail key and takes back its count
//     on the address key without clearing it: an attacker holding one valid
//     account must not be able to reset the counter of the address they
//     guess other accounts from.
//
// Counting uses single atomic statements (an upsert and a conditional
// UPDATE), correct on SQLite and PostgreSQL without explicit locking.

// throttleKeys returns the keys an attempt is counted under; the e-mail key
// comes first.
func throttleKeys(email, clientAddr string) []string {
	keys := []string{"email:" + strings.ToLower(strings.TrimSpace(email))}
	if clientAddr != "" {
		keys = append(keys, "addr:"+clientAddr)
	}
	return keys
}

// checkThrottle returns a TooManyRequests error when any of keys is blocked.
func (s *Service) checkThrottle(ctx context.Context, keys []string) error {
	now := s.clock()
	rows, err := s.client.LoginThrottle.Query().
		Where(loginthrottle.KeyIn(keys...), loginthrottle.BlockedUntilGT(now)).
		All(ctx)
	if err != nil {
		return internalErr(err)
	}
	var until time.Time
	for _, r := range rows {
		if r.BlockedUntil.After(until) {
			until = *r.BlockedUntil
		}
	}
	if until.IsZero() {
		return nil
	}
	secs := max(1, int(math.Ceil(until.Sub(now).Seconds())))
	e := apperr.New(apperr.TooManyRequests,
		"Too many failed sign-in attempts. Try again in %d seconds.", secs)
	e.RetryAfter = secs
	return e
}

// beginAttempt counts an attempt under every key before its password is
// checked. When a key has no attempts left in its window (concurrent
// attempts got there first) the key is blocked and the attempt refused with
// 429.
func (s *Service) beginAttempt(ctx context.Context, keys []string) error {
	now := s.clock()
	refused := false
	for _, k := range keys {
		ok, err := s.claimAttempt(ctx, k, now)
		if err != nil {
			return internalErr(err)
		}
		if !ok {
			refused = true
			if err := s.block(ctx, k, now); err != nil {
				return internalErr(err)
			}
		}
	}
	if refused {
		return s.checkThrottle(ctx, keys)
	}
	return nil
}

// attemptFailed blocks the keys whose count of failures has reached
// cfg.MaxFailures; the attempt itself was counted by beginAttempt.
func (s *Service) attemptFailed(ctx context.Context, keys []string) error {
	now := s.clock()
	for _, k := range keys {
		err := s.client.LoginThrottle.Update().
			Where(loginthrottle.KeyEQ(k),
				loginthrottle.FailuresGTE(s.cfg.MaxFailures),
				loginthrottle.BlockedUntilIsNil()).
			SetBlockedUntil(now.Add(s.cfg.FailureWindow)).
			Exec(ctx)
		if err != nil {
			return internalErr(err)
		}
	}
	return nil
}

// attemptSucceeded deletes the e-mail key and takes the attempt back from
// the other keys.
func (s *Service) attemptSucceeded(ctx context.Context, keys []string) error {
	if _, err := s.client.LoginThrottle.Delete().Where(loginthrottle.KeyEQ(keys[0])).Exec(ctx); err != nil {
		return internalErr(err)
	}
	for _, k := range keys[1:] {
		err := s.client.LoginThrottle.Update().
			Where(loginthrottle.KeyEQ(k), loginthrottle.FailuresGT(0)).
			AddFailures(-1).
			Exec(ctx)
		if err != nil {
			return internalErr(err)
		}
	}
	return nil
}

// claimAttempt counts one attempt under key unless the key's window has
// no attempts left, reporting whether it did. The row is first created, or
// given a fresh window when the old one has passed (one upsert); then a
// conditional UPDATE takes one attempt. Each statement is atomic on SQLite
// and PostgreSQL, so concurrent processes never admit more than
// cfg.MaxFailures attempts per window.
func (s *Service) claimAttempt(ctx context.Context, key string, now time.Time) (bool, error) {
	err := s.client.LoginThrottle.Create().
		SetKey(key).SetFailures(0).SetWindowStart(now).
		OnConflict(
			entsql.ConflictColumns(loginthrottle.FieldKey),
			entsql.ResolveWith(renewWindowSQL(now, now.Add(-s.cfg.FailureWindow))),
		).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := s.client.LoginThrottle.Update().
		Where(loginthrottle.KeyEQ(key), loginthrottle.FailuresLT(s.cfg.MaxFailures)).
		AddFailures(1).
		Save(ctx)
	return n == 1, err
}

// block blocks key for cfg.FailureWindow unless it is blocked already.
func (s *Service) block(ctx context.Context, key string, now time.Time) error {
	return s.client.LoginThrottle.Update().
		Where(loginthrottle.KeyEQ(key), loginthrottle.BlockedUntilIsNil()).
		SetBlockedUntil(now.Add(s.cfg.FailureWindow)).
		Exec(ctx)
}

// renewWindowSQL is the ON CONFLICT update of claimAttempt: when the stored
// window started at or before cutoff, a new window opens at now with no
// attempts and no block; otherwise the row stays as it is. Every CASE reads
// the row as it was before the update, in SQLite and PostgreSQL alike.
func renewWindowSQL(now, cutoff time.Time) func(*entsql.UpdateSet) {
	return func(u *entsql.UpdateSet) {
		col := u.Table().C
		ws := col(loginthrottle.FieldWindowStart)
		// ifExpired chooses between two SQL expressions by whether the
		// stored window has passed.
		ifExpired := func(then func(*entsql.Builder), otherwise string) entsql.Querier {
			return entsql.ExprFunc(func(b *entsql.Builder) {
				b.WriteString("CASE WHEN " + ws + " <= ").Arg(cutoff).WriteString(" THEN ")
				then(b)
				b.WriteString(" ELSE " + otherwise + " END")
			})
		}
		sqlText := func(s string) func(*entsql.Builder) {
			return func(b *entsql.Builder) { b.WriteString(s) }
		}
		u.Set(loginthrottle.FieldFailures,
			ifExpired(sqlText("0"), col(loginthrottle.FieldFailures)))
		u.Set(loginthrottle.FieldWindowStart,
			ifExpired(func(b *entsql.Builder) { b.Arg(now) }, ws))
		u.Set(loginthrottle.FieldBlockedUntil,
			ifExpired(sqlText("NULL"), col(loginthrottle.FieldBlockedUntil)))
	}
}
