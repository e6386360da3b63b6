package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/netip"
	"strings"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/loginthrottle"
	"github.com/geopub/geopub/internal/apperr"
)

// Throttling of password guessing, kept in the database (LoginThrottle rows)
// so that every server process sharing it enforces the same limits. It
// slows guessing down with growing delays; it never locks an account, so
// nobody can keep an owner out by typing wrong passwords for their e-mail
// address.
//
// Every attempt is counted under three keys:
//
//   - "pair:<e-mail>|<address>": one account from one client address.
//     Its first cfg.MaxFailures attempts are free; from then on each
//     attempt makes the next one wait cfg.ThrottleDelay, doubling each
//     time up to cfg.MaxThrottleDelay. This is the limit a guesser meets.
//   - "addr:<address>": one client address across every account, with
//     cfg.AddrMaxFailures free attempts and the same growing delay, so one
//     address cannot spray guesses over many accounts.
//   - "account:<e-mail>": one account across every address, with the much
//     higher cfg.AccountMaxFailures free attempts and the same growing
//     delay. Its delay holds back only addresses that have already failed
//     on that account (a "pair" row with failures); an address that has
//     not — the owner at home, on the phone — is never held back by it, so
//     distributed guessing is slowed to one try per fresh address while
//     the owner still gets in.
//
// Client addresses are those ClientAddr gives (behind the operator's
// trusted proxies, the client's, by internal/forwarded); an IPv6 address counts as its /64 network,
// since one host commonly holds a whole /64. The e-mail address is
// compared case-insensitively and counted whether or not it has an account,
// so throttling does not reveal which addresses do.
//
// An attempt is counted (and the delay it earns set) before its password
// is checked, so a burst of parallel requests cannot slip past the limit
// while the first ones are still hashing; a refused attempt is not counted.
// A successful sign-in deletes its pair row and takes its own attempt back
// from the address and account keys, lifting the delay it set. A key is
// forgotten after cfg.FailureWindow without attempts since its last delay
// ended.
//
// A refused attempt gets 429 with Retry-After before the password is
// looked at, so even the right password waits. Counting is a
// compare-and-swap on the row (an UPDATE conditioned on the values read),
// correct on SQLite and PostgreSQL without explicit locking.

// maxClaimTries bounds the compare-and-swap retries of one claim; a key
// that busy is refused briefly instead.
const maxClaimTries = 50

// throttleKey is one key an attempt is counted under and the number of
// free attempts it allows.
type throttleKey struct {
	key  string
	free int
	// spareClean: the key's delay does not hold back an address that has
	// not failed on the account (the account key).
	spareClean bool
}

// throttleKeys returns the keys an attempt is counted under: the pair key
// first, then the address key (when the address is known), then the
// account key. The e-mail is whatever the caller sent (any length, NUL
// bytes, invalid UTF-8), so keys carry its digest, never the text.
func (s *Service) throttleKeys(email, clientAddr string) []throttleKey {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	email = hex.EncodeToString(sum[:16])
	addr := throttleAddr(clientAddr)
	keys := []throttleKey{{key: "pair:" + email + "|" + addr, free: s.cfg.MaxFailures}}
	if addr != "" {
		keys = append(keys, throttleKey{key: "addr:" + addr, free: s.cfg.AddrMaxFailures})
	}
	return append(keys, throttleKey{key: "account:" + email, free: s.cfg.AccountMaxFailures, spareClean: true})
}

// throttleAddr is the part of a client address throttling counts under:
// an IPv4 address whole, an IPv6 address as its /64 network.
func throttleAddr(addr string) string {
	if addr == "" {
		return ""
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		sum := sha256.Sum256([]byte(addr))
		return "unparsed-" + hex.EncodeToString(sum[:8])
	}
	if a.Is4() {
		return addr
	}
	p, err := a.Unmap().WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

// beginAttempt checks and counts an attempt under keys before its
// password is checked, returning a TooManyRequests error when the attempt
// must wait.
func (s *Service) beginAttempt(ctx context.Context, keys []throttleKey) error {
	now := s.clock()
	rows, err := s.client.LoginThrottle.Query().
		Where(loginthrottle.KeyIn(keyNames(keys)...)).
		All(ctx)
	if err != nil {
		return internalErr(err)
	}
	byKey := map[string]*ent.LoginThrottle{}
	for _, r := range rows {
		byKey[r.Key] = r
	}
	// dirty: this address has failed on this account lately.
	dirty := false
	if r := byKey[keys[0].key]; r != nil && !s.forgotten(r, now) && r.Failures > 0 {
		dirty = true
	}
	var until time.Time
	for _, k := range keys {
		if r := byKey[k.key]; r != nil && s.holds(k, r, now, dirty) && r.BlockedUntil.After(until) {
			until = *r.BlockedUntil
		}
	}
	if !until.IsZero() {
		return tooManyAttempts(until, now)
	}
	for _, k := range keys {
		until, err := s.claimAttempt(ctx, k, now, dirty)
		if err != nil {
			return internalErr(err)
		}
		if !until.IsZero() {
			return tooManyAttempts(until, now)
		}
	}
	return nil
}

// attemptSucceeded deletes the pair key and takes the attempt back from
// the other keys, lifting the delay it set there.
func (s *Service) attemptSucceeded(ctx context.Context, keys []throttleKey) error {
	if _, err := s.client.LoginThrottle.Delete().Where(loginthrottle.KeyEQ(keys[0].key)).Exec(ctx); err != nil {
		return internalErr(err)
	}
	for _, k := range keys[1:] {
		err := s.client.LoginThrottle.Update().
			Where(loginthrottle.KeyEQ(k.key), loginthrottle.FailuresGT(0)).
			AddFailures(-1).
			ClearBlockedUntil().
			Exec(ctx)
		if err != nil {
			return internalErr(err)
		}
	}
	return nil
}

// claimAttempt counts one attempt under k and sets the delay it earns,
// unless k's delay holds the attempt back; then it returns when the delay
// ends and counts nothing. dirty says whether the attempt's address has
// failed on the account lately.
func (s *Service) claimAttempt(ctx context.Context, k throttleKey, now time.Time, dirty bool) (time.Time, error) {
	for range maxClaimTries {
		r, err := s.client.LoginThrottle.Query().Where(loginthrottle.KeyEQ(k.key)).Only(ctx)
		if ent.IsNotFound(err) {
			err = s.client.LoginThrottle.Create().
				SetKey(k.key).SetFailures(1).SetWindowStart(now).
				SetNillableBlockedUntil(s.delayAfter(1, k.free, now)).
				Exec(ctx)
			if ent.IsConstraintError(err) {
				continue // created concurrently: count on that row
			}
			return time.Time{}, err
		}
		if err != nil {
			return time.Time{}, err
		}
		failures, blocked := r.Failures, r.BlockedUntil
		if s.forgotten(r, now) {
			failures, blocked = 0, nil
		}
		if blocked != nil && blocked.After(now) && (dirty || !k.spareClean) {
			return *blocked, nil
		}
		n := failures + 1
		next := s.delayAfter(n, k.free, now)
		if next == nil || (blocked != nil && blocked.After(*next)) {
			next = blocked
		}
		upd := s.client.LoginThrottle.Update().
			Where(loginthrottle.KeyEQ(k.key),
				loginthrottle.FailuresEQ(r.Failures),
				loginthrottle.WindowStartEQ(r.WindowStart)).
			SetFailures(n).
			SetWindowStart(now)
		if next == nil {
			upd.ClearBlockedUntil()
		} else {
			upd.SetBlockedUntil(*next)
		}
		changed, err := upd.Save(ctx)
		if err != nil {
			return time.Time{}, err
		}
		if changed == 1 {
			return time.Time{}, nil
		}
		// Another attempt counted first: read the row again.
	}
	return now.Add(time.Second), nil
}

// delayAfter returns when the attempt after the n-th may come, for a key
// with free free attempts: nil while n < free, then now plus
// cfg.ThrottleDelay doubled n-free times, at most cfg.MaxThrottleDelay.
func (s *Service) delayAfter(n, free int, now time.Time) *time.Time {
	if n < free {
		return nil
	}
	d := s.cfg.MaxThrottleDelay
	if shift := n - free; shift < 30 {
		d = min(d, s.cfg.ThrottleDelay<<shift)
	}
	t := now.Add(d)
	return &t
}

// forgotten reports whether r has seen no attempt for cfg.FailureWindow
// since its last delay ended, so it counts as empty.
func (s *Service) forgotten(r *ent.LoginThrottle, now time.Time) bool {
	last := r.WindowStart
	if r.BlockedUntil != nil && r.BlockedUntil.After(last) {
		last = *r.BlockedUntil
	}
	return !last.After(now.Add(-s.cfg.FailureWindow))
}

// holds reports whether row r of key k holds back an attempt at now from
// an address that is dirty (has failed on the account) or not.
func (s *Service) holds(k throttleKey, r *ent.LoginThrottle, now time.Time, dirty bool) bool {
	if r.BlockedUntil == nil || !r.BlockedUntil.After(now) {
		return false
	}
	return dirty || !k.spareClean
}

// tooManyAttempts is the 429 of an attempt that must wait until until.
func tooManyAttempts(until, now time.Time) error {
	secs := max(1, int(math.Ceil(until.Sub(now).Seconds())))
	e := apperr.New(apperr.TooManyRequests,
		"Too many failed sign-in attempts. Try again in %d seconds.", secs)
	e.RetryAfter = secs
	return e
}

// keyNames returns the names of keys.
func keyNames(keys []throttleKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.key
	}
	return out
}
