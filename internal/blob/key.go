package blob

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

const (
	// MaxKeyLen is the longest key accepted, in bytes (S3's own limit).
	MaxKeyLen = 1024
	// MaxSegmentLen is the longest "/"-separated segment accepted, in bytes:
	// a segment is a file name on the local backend, which adds up to 21
	// bytes of temporary suffix to a name limited to 255.
	MaxSegmentLen = 200
)

var (
	// ErrNotFound is matched (errors.Is) by errors about a missing object.
	ErrNotFound = errors.New("blob: not found")
	// ErrInvalidKey is matched (errors.Is) by errors about a key or prefix
	// that ValidateKey rejects.
	ErrInvalidKey = errors.New("blob: invalid key")
)

// tempName matches the names the local backend gives objects being written
// ("<name>.<hex>.tmp"); such keys are reserved so List can hide them.
var tempName = regexp.MustCompile(`\.[0-9a-f]+\.tmp$`)

// ValidateKey reports whether key is usable on every backend. A key is 1 to
// MaxKeyLen bytes of UTF-8 made of "/"-separated segments where:
//   - no segment is empty (no leading or trailing "/", no "//");
//   - no segment is "." or "..", nor longer than MaxSegmentLen;
//   - there is no backslash, NUL or other control character;
//   - the key does not end in ".attrs" or ".<hex>.tmp", names the local
//     backend reserves for its metadata and in-flight files.
//
// The error wraps ErrInvalidKey.
func ValidateKey(key string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidKey, truncate(key), why)
	}
	switch {
	case key == "":
		return bad("empty")
	case len(key) > MaxKeyLen:
		return bad(fmt.Sprintf("longer than %d bytes", MaxKeyLen))
	case !utf8.ValidString(key):
		return bad("not valid UTF-8")
	case strings.ContainsRune(key, '\\'):
		return bad("contains a backslash")
	case strings.HasSuffix(key, ".attrs") || tempName.MatchString(key):
		return bad("reserved name")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return bad("contains a control character")
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch seg {
		case "":
			return bad("empty path segment")
		case ".", "..":
			return bad("dot segment")
		}
		if len(seg) > MaxSegmentLen {
			return bad(fmt.Sprintf("path segment longer than %d bytes", MaxSegmentLen))
		}
	}
	return nil
}

// validatePrefix accepts "" (everything) or any string that could begin a
// valid key, such as "exports/" or "exports/2024-".
func validatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := ValidateKey(prefix + "x"); err != nil {
		return fmt.Errorf("prefix: %w", err)
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
