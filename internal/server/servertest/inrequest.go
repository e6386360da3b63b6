package servertest

import (
	"context"

	"github.com/go-chi/chi/v5/middleware"
)

// InRequest reports whether ctx belongs to a request the service is
// serving (the router gives each one an ID): the storetest.Counter filter
// that counts a request's statements and leaves out background work (the
// popularity flush, sweeps) that may run at any moment.
func InRequest(ctx context.Context) bool { return middleware.GetReqID(ctx) != "" }
