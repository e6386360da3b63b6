package audit

import "strings"

// secretWords mark a field that holds a secret: a field whose name
// contains one is never written to the log.
var secretWords = []string{"password", "secret", "key_hash", "token_hash", "csrf", "credential", "api_key", "private_key"}

// secretNames are whole field names that hold secrets.
var secretNames = map[string]bool{"key": true, "hash": true, "connection": true, "dsn": true}

// redact copies m without the fields that hold secrets, at any depth. It
// returns nil for an empty map.
func redact(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if isSecret(k) {
			continue
		}
		if sub, ok := v.(map[string]any); ok {
			v = redact(sub)
		}
		out[k] = v
	}
	return out
}

func isSecret(name string) bool {
	n := strings.ToLower(name)
	if secretNames[n] {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
