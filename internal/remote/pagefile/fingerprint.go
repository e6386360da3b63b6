package pagefile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Fingerprint digests what says a datasource changed (its schema, count,
// CRS, last edit): equal parts give equal fingerprints.
func Fingerprint(parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
