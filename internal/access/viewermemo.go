package access

import (
	"context"
	"sync"
)

// A viewer memo lets one read-only request resolve its caller's group
// memberships once: a GraphQL query over a hundred datasets, each field
// guarded by the caller's level, otherwise reads the same memberships a
// hundred times. Requests that write, and streams that outlive a
// membership change, must not carry one: a membership granted or revoked
// during them would go unseen.
type viewerMemoKey struct{}

type viewerMemo struct {
	mu sync.Mutex
	m  map[int]*Viewer // by user ID
}

// WithViewerMemo returns ctx carrying a memo of the viewers NewViewer
// resolves under it. Only for requests that change no memberships and end
// promptly (GraphQL queries).
func WithViewerMemo(ctx context.Context) context.Context {
	if _, ok := ctx.Value(viewerMemoKey{}).(*viewerMemo); ok {
		return ctx
	}
	return context.WithValue(ctx, viewerMemoKey{}, &viewerMemo{m: map[int]*Viewer{}})
}

func memoOf(ctx context.Context) *viewerMemo {
	m, _ := ctx.Value(viewerMemoKey{}).(*viewerMemo)
	return m
}

func (m *viewerMemo) get(userID int) *Viewer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[userID]
}

func (m *viewerMemo) put(v *Viewer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[v.UserID] = v
}
