package oauthserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
)

// randomString returns n random bytes, base64url without padding: client
// ids, client secrets, codes and refresh tokens.
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hashSecret is how secrets, codes and refresh tokens are stored: they
// are random with 256 bits of entropy, so a plain SHA-256 suffices.
func hashSecret(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// sameHash compares a presented secret with a stored hash in constant
// time.
func sameHash(presented, stored string) bool {
	return stored != "" && subtle.ConstantTimeCompare([]byte(hashSecret(presented)), []byte(stored)) == 1
}

// pkceS256 is the S256 code challenge of verifier (RFC 7636 §4.2).
func pkceS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// validVerifier checks a code_verifier's form (RFC 7636 §4.1): 43 to 128
// unreserved characters.
func validVerifier(v string) bool {
	return validPKCEString(v)
}

// validPKCEString reports whether s is 43 to 128 characters of
// [A-Za-z0-9-._~], the form of verifiers and of S256 challenges.
func validPKCEString(s string) bool {
	if len(s) < 43 || len(s) > 128 {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}
