package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/geopub/geopub/internal/apperr"
)

// MinPasswordLength is the shortest password, in characters, HashPassword
// accepts.
const MinPasswordLength = 8

// Argon2id parameters for new hashes. They follow the OWASP password storage
// recommendation (m=19 MiB, t=2, p=1): one hash took about 30 ms on the
// 2-core development machine (BenchmarkHashPassword), well under the 100 ms
// budget for a sign-in, and it uses one core and 19 MiB, so concurrent
// sign-ins neither starve other requests nor exhaust memory as m=64 MiB, p=2
// (about 40 ms there) would sooner. VerifyPassword reads the parameters from the
// stored string, so they can be raised later without invalidating hashes.
const (
	argonMemoryKiB  = 19 * 1024
	argonIterations = 2
	argonThreads    = 1
	argonSaltLen    = 16
	argonKeyLen     = 32
)

// Upper bounds on parameters read back from a stored hash, so a corrupt or
// tampered row cannot make one verification allocate gigabytes.
const (
	maxArgonMemoryKiB  = 1024 * 1024
	maxArgonIterations = 16
)

var b64 = base64.RawStdEncoding

// errBadHash reports a stored hash that is not a PHC argon2id string.
var errBadHash = errors.New("auth: malformed password hash")

// HashPassword returns the argon2id PHC string
// ($argon2id$v=19$m=...,t=...,p=...$salt$hash) of pw with a fresh random
// salt. Passwords shorter than MinPasswordLength are refused.
func HashPassword(pw string) (string, error) {
	if utf8.RuneCountInString(pw) < MinPasswordLength {
		return "", apperr.Field("password", fmt.Sprintf(
			"This password is too short. It must contain at least %d characters.", MinPasswordLength))
	}
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", internalErr(err)
	}
	sum := argon2.IDKey([]byte(pw), salt, argonIterations, argonMemoryKiB, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemoryKiB, argonIterations, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(sum)), nil
}

// VerifyPassword reports whether pw matches the PHC string encoded. The
// final comparison is constant-time. A malformed encoding is an error.
func VerifyPassword(encoded, pw string) (bool, error) {
	p, err := parseHash(encoded)
	if err != nil {
		return false, internalErr(err)
	}
	sum := argon2.IDKey([]byte(pw), p.salt, p.t, p.m, p.p, uint32(len(p.sum)))
	return subtle.ConstantTimeCompare(sum, p.sum) == 1, nil
}

// phc is a parsed argon2id hash.
type phc struct {
	m, t      uint32
	p         uint8
	salt, sum []byte
}

// parseHash splits a PHC argon2id string into its parameters.
func parseHash(encoded string) (phc, error) {
	var h phc
	parts := strings.Split(encoded, "$")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, sum
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return h, errBadHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return h, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.m, &h.t, &h.p); err != nil {
		return h, errBadHash
	}
	if h.m < 8 || h.m > maxArgonMemoryKiB || h.t < 1 || h.t > maxArgonIterations || h.p < 1 {
		return h, errBadHash
	}
	var err1, err2 error
	h.salt, err1 = b64.DecodeString(parts[4])
	h.sum, err2 = b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(h.salt) < 8 || len(h.sum) < 16 {
		return h, errBadHash
	}
	return h, nil
}

// dummyHash is verified against when the user is unknown or has no
// password, so such attempts take as long as real ones and do not reveal
// which e-mail addresses have accounts.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPassword(rand.Text())
	if err != nil {
		panic(err) // rand.Text is 26 characters; only a broken RNG fails
	}
	return h
})
