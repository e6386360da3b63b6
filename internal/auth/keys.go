package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// KeyLength is the length of an API token key, in characters.
const KeyLength = 32

// keyAlphabet is the set of characters a key is drawn from.
const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// keyHintLength is how many leading characters of a key its hint shows.
const keyHintLength = 5

// NewKey returns a fresh API token key: KeyLength characters drawn uniformly
// from [A-Za-z0-9] with crypto/rand (about 190 bits of entropy).
func NewKey() (string, error) {
	// Rejection sampling keeps the draw uniform: bytes >= 248 (4*62) are
	// discarded instead of folded onto the first letters by the modulo.
	const limit = 256 - 256%len(keyAlphabet)
	out := make([]byte, 0, KeyLength)
	buf := make([]byte, KeyLength*2)
	for len(out) < KeyLength {
		if _, err := rand.Read(buf); err != nil {
			return "", internalErr(err)
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < KeyLength {
				out = append(out, keyAlphabet[int(b)%len(keyAlphabet)])
			}
		}
	}
	return string(out), nil
}

// HashKey returns the hex SHA-256 of a key, the form in which keys (and
// session cookie values) are stored and looked up. A fast unsalted hash is
// right here, unlike for passwords: the secrets are random with ~190 (keys)
// or 256 (sessions) bits of entropy, so a stolen table cannot be brute-forced
// however fast the hash, and a deterministic hash allows an indexed lookup on
// every request.
func HashKey(key string) string { return hashText(keySum(key)) }

// keySum is the SHA-256 of a key, which the key cache is keyed by.
func keySum(key string) [sha256.Size]byte { return sha256.Sum256([]byte(key)) }

// hashText is a key's sum in its stored form.
func hashText(sum [sha256.Size]byte) string { return hex.EncodeToString(sum[:]) }

// KeyHint returns the leading characters of key followed by an ellipsis,
// e.g. "0fooX...", so owners can tell their tokens apart.
func KeyHint(key string) string {
	if len(key) > keyHintLength {
		key = key[:keyHintLength]
	}
	return key + "..."
}

// wellFormedKey reports whether s could be a key, so that garbage is
// refused without a database lookup.
func wellFormedKey(s string) bool {
	if len(s) != KeyLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// randomToken returns n random bytes, base64url-encoded without padding;
// used for session cookie values and CSRF tokens.
func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", internalErr(err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
