package graph

import (
	"context"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/remote/s3source"
)

// checkStoreOptions validates the object-store options of a create or
// update (endpoint and region, which only s3 sources take) and trims them.
// The endpoint passes the guard like an http(s) url_remote.
func (r *Resolver) checkStoreOptions(ctx context.Context, typ source.Type, o *SourceOptionsInput) error {
	if o == nil {
		return nil
	}
	fe := apperr.FieldErrors{}
	if o.Endpoint != nil {
		raw := strings.TrimSpace(*o.Endpoint)
		o.Endpoint = &raw
		switch {
		case raw == "":
		case typ != source.TypeS3:
			fe.Add("options.endpoint", "Only object-store (s3) sources take an endpoint.")
		case s3source.CheckEndpoint(raw) != "":
			fe.Add("options.endpoint", s3source.CheckEndpoint(raw))
		default:
			if _, err := r.Fetch.Guard.CheckURL(ctx, "options.endpoint", raw, []string{"http", "https"}, true); err != nil {
				return err
			}
		}
	}
	if o.Region != nil {
		raw := strings.TrimSpace(*o.Region)
		o.Region = &raw
		switch {
		case raw == "":
		case typ != source.TypeS3:
			fe.Add("options.region", "Only object-store (s3) sources take a region.")
		case s3source.CheckRegion(raw) != "":
			fe.Add("options.region", s3source.CheckRegion(raw))
		}
	}
	return fe.Err()
}

// applyStoreOptions sets the object-store options of a create or update.
func applyStoreOptions(m *ent.SourceMutation, o *SourceOptionsInput) {
	if o == nil {
		return
	}
	if o.Endpoint != nil {
		m.SetEndpoint(*o.Endpoint)
	}
	if o.Region != nil {
		m.SetRegion(*o.Region)
	}
}

// checkUsername requires a PostgreSQL source's username: the input's
// when it gives one, else stored (the row's, "" on create). No user is
// assumed in its place.
func checkUsername(typ source.Type, o *SourceOptionsInput, stored string) error {
	if typ != source.TypePostgres {
		return nil
	}
	name := stored
	if o != nil && o.Username != nil {
		name = *o.Username
	}
	if strings.TrimSpace(name) == "" {
		return apperr.Field("options.username", "PostgreSQL sources need a username: give options.username.")
	}
	return nil
}
