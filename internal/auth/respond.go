package auth

import (
	"encoding/json"
	"net/http"

	"github.com/geopub/geopub/internal/apperr"
)

// writeDetail is the one writer of the middleware's error responses: the
// REST error body {"detail": "...", "code": "..."} with Content-Type
// application/json.
func writeDetail(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"detail": detail, "code": string(apperr.ForStatus(status))})
}
