package datatable

import (
	"context"

	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
)

// OpenAs is Open for the caller p (the doors hold no Ent client).
func (s *Service) OpenAs(ctx context.Context, p auth.Principal, id int) (*Table, error) {
	v, err := access.NewViewer(ctx, s.f.Client(), p)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx, v, id)
}

// PageTable is the table the HTML page of layer id shows to p: only when
// both the data-table-ui key and the data-table service allow p (the UI
// key follows the service's switch; its permissions are its own).
// ErrNotFound otherwise.
func (s *Service) PageTable(ctx context.Context, p auth.Principal, id int) (*Table, error) {
	v, err := access.NewViewer(ctx, s.f.Client(), p)
	if err != nil {
		return nil, err
	}
	t, err := s.Open(ctx, v, id)
	if err != nil {
		return nil, err
	}
	ok, err := v.MayUseService(ctx, s.f.Client(), t.c.Owner, UIKey)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNotFound
	}
	return t, nil
}
