package exports

// The scopes of the export API.
const (
	ScopeRead  = "exports:read"
	ScopeWrite = "exports:write"
)
