// Package secrets keeps credentials encrypted at rest: AES-256-GCM under
// one key of the service (GEOPUB_SECRET_KEY, or a key file generated once
// in the data directory). A sealed value carries a version prefix; a
// stored value without it is read as it is (rows written before
// credentials were encrypted).
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// prefix marks a value sealed by this package, version 1:
// "gpenc1:" + base64(nonce || ciphertext || tag).
const prefix = "gpenc1:"

// ErrWrongKey reports a sealed value the key cannot open: it was sealed
// under another key, or it was altered.
var ErrWrongKey = errors.New("the stored credentials cannot be decrypted with the configured secret key (GEOPUB_SECRET_KEY); was the key changed?")

// Box seals and opens values under one key.
type Box struct{ aead cipher.AEAD }

// New is a Box under key, which must be KeySize bytes.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets: the key must be %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// ParseKey reads a key written in standard base64.
func ParseKey(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, errors.New("secrets: the key is not valid base64")
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets: the key must decode to %d bytes, not %d", KeySize, len(key))
	}
	return key, nil
}

// KeyFile is the name of the generated key file in the data directory.
const KeyFile = "secret.key"

// LoadOrCreate reads the key file in dir, generating it (mode 0600) when
// it does not exist yet; created says it was generated now.
func LoadOrCreate(dir string) (key []byte, created bool, err error) {
	path := filepath.Join(dir, KeyFile)
	b, err := os.ReadFile(path)
	if err == nil {
		key, err := ParseKey(string(b))
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		return key, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	}
	key = make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, false, err
	}
	// O_EXCL: two processes starting at once keep the first one's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadOrCreate(dir)
	}
	if err != nil {
		return nil, false, err
	}
	_, err = f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, false, err
	}
	return key, true, nil
}

// Seal encrypts plain; the empty string stays empty (no credential).
func (b *Box) Seal(plain string) (string, error) {
	if plain == "" {
		return "", nil
	}
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	sealed := b.aead.Seal(nonce, nonce, []byte(plain), []byte(prefix))
	return prefix + base64.StdEncoding.EncodeToString(sealed), nil
}

// Open decrypts a stored value: sealed values are opened (ErrWrongKey if
// the key does not fit), others are returned as they are.
func (b *Box) Open(stored string) (string, error) {
	rest, ok := strings.CutPrefix(stored, prefix)
	if !ok {
		return stored, nil
	}
	raw, err := base64.StdEncoding.DecodeString(rest)
	n := b.aead.NonceSize()
	if err != nil || len(raw) < n+b.aead.Overhead() {
		return "", ErrWrongKey
	}
	plain, err := b.aead.Open(nil, raw[:n], raw[n:], []byte(prefix))
	if err != nil {
		return "", ErrWrongKey
	}
	return string(plain), nil
}

// Prefix starts every sealed value (for queries that look for them).
const Prefix = prefix

// Sealed reports whether a stored value is sealed by this package.
func Sealed(stored string) bool { return strings.HasPrefix(stored, prefix) }
