// Package accounts is the lifecycle of user accounts after their creation
// (internal/users): site administrators lock, unlock and delete users
// (their datasets and sources passing to a receiver, in one transaction),
// and users change their password and see and end their own sessions.
// Every method authorizes its caller from the request's principal.
package accounts

import (
	"context"
	"log/slog"

	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/store"
)

// BlobRemover deletes stored files: the exports of a deleted user.
type BlobRemover interface {
	Delete(ctx context.Context, key string) error
}

// Service runs the account lifecycle over the store.
type Service struct {
	Store *store.Store
	Auth  *auth.Service
	// Blobs removes the files of a deleted user's exports once the
	// deletion commits; nil leaves them to the operator.
	Blobs  BlobRemover
	Logger *slog.Logger
}

// New returns a Service.
func New(s *store.Store, a *auth.Service, blobs BlobRemover, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.Default()
	}
	return &Service{Store: s, Auth: a, Blobs: blobs, Logger: logger}
}
