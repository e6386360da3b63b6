package graph

import (
	"context"
	"errors"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/ent/source"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/scanning"
	"github.com/geopub/geopub/internal/schedule"
)

// remoteSchemes are the URL schemes each remote source type accepts.
var remoteSchemes = map[source.Type][]string{
	source.TypeURL:      {"http", "https"},
	source.TypeArcgis:   {"http", "https"},
	source.TypeWfs:      {"http", "https"},
	source.TypeCifs:     {"cifs"},
	source.TypePostgres: {"postgresql", "postgres"},
	source.TypeS3:       {"s3"},
}

// loadScan returns a scan of a source on which the caller holds level,
// with credentials carrying scope: the read scope to see it, the write
// scope to change it.
func (r *Resolver) loadScan(ctx context.Context, sourceID, scanID int, scope string, level access.Level) (*ent.Scan, error) {
	if _, err := r.loadSource(ctx, sourceID, scope, level); err != nil {
		return nil, err
	}
	sc, err := r.Client.Scan.Query().Where(scan.ID(scanID), scan.SourceID(sourceID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Scan %d not found.", scanID)
	}
	return sc, err
}

// checkSourceRemote validates url_remote for a source type. Remote URLs of
// http(s) sources must resolve to public addresses (unless allow-listed).
func (r *Resolver) checkSourceRemote(ctx context.Context, typ source.Type, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if typ == source.TypeUpload {
		if raw != "" {
			return "", apperr.Field("url_remote", "Upload sources take files, not a URL.")
		}
		return "", nil
	}
	if raw == "" {
		return "", apperr.Field("url_remote", "This field is required for "+string(typ)+" sources.")
	}
	schemes := remoteSchemes[typ]
	resolve := schemes[0] == "http"
	u, err := r.Fetch.Guard.CheckURL(ctx, "url_remote", raw, schemes, resolve)
	if err != nil {
		return "", err
	}
	if err := scanning.CheckRemoteURL(typ, u); err != nil {
		return "", apperr.Field("url_remote", err.Error())
	}
	return u.String(), nil
}

// sealOptions is o with its credentials sealed (package secrets): every
// create and update passes its options through it, so a source's row
// never holds a credential in clear.
func (r *Resolver) sealOptions(o *SourceOptionsInput) (*SourceOptionsInput, error) {
	if o == nil || (o.Username == nil && o.Password == nil) {
		return o, nil
	}
	if r.Secrets == nil {
		return nil, errors.New("no secret key is configured to seal credentials")
	}
	out := *o
	for _, p := range []**string{&out.Username, &out.Password} {
		if *p == nil {
			continue
		}
		sealed, err := r.Secrets.Seal(**p)
		if err != nil {
			return nil, err
		}
		*p = &sealed
	}
	return &out, nil
}

// applySourceOptions sets the options (sealed by sealOptions) of a create
// or update.
func applySourceOptions(m *ent.SourceMutation, o *SourceOptionsInput) {
	if o == nil {
		return
	}
	if o.Username != nil {
		m.SetUsername(*o.Username)
	}
	if o.Password != nil {
		m.SetPassword(*o.Password)
	}
	if o.SslVerify != nil {
		m.SetSslVerify(*o.SslVerify)
	}
	if o.Folders != nil {
		m.SetFolders(o.Folders)
	}
	if o.Schemas != nil {
		m.SetSchemas(o.Schemas)
	}
	applyStoreOptions(m, o)
}

// AuthorizeSourceUpload checks, before a single byte of an upload is
// read, that the caller may create upload sources at all: a signed-in
// user whose credentials carry sources:write. The REST adapter asks it
// first so that anonymous or under-scoped uploads are refused unread;
// UploadSource checks it again, with the group, once the source is known.
func (r *Resolver) AuthorizeSourceUpload(ctx context.Context) error {
	_, err := access.RequireUser(ctx, auth.ScopeSourcesWrite)
	return err
}

// createSource validates input and creates the source; files are an upload
// source's content.
func (r *Resolver) createSource(ctx context.Context, u *ent.User, input CreateSourceInput, files []*graphql.Upload) (*ent.Source, error) {
	fe := apperr.FieldErrors{}
	title := strings.TrimSpace(input.Title)
	if title == "" {
		fe.Add("title", "This field is required.")
	}
	sched := strings.TrimSpace(ptrOr(input.ScanSchedule, ""))
	if p := schedule.Problem(sched); p != "" {
		fe.Add("scan_schedule", p)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	remote, err := r.checkSourceRemote(ctx, input.Type, ptrOr(input.URLRemote, ""))
	if err != nil {
		return nil, err
	}
	if err := r.checkStoreOptions(ctx, input.Type, input.Options); err != nil {
		return nil, err
	}
	if err := checkUsername(input.Type, input.Options, ""); err != nil {
		return nil, err
	}
	if input.GroupID != nil {
		if err := r.requireGroupData(ctx, *input.GroupID); err != nil {
			return nil, err
		}
	}
	opts, err := r.sealOptions(input.Options)
	if err != nil {
		return nil, err
	}
	build := func(m *ent.SourceCreate) {
		m.SetType(input.Type).
			SetTitle(title).
			SetDescription(ptrOr(input.Description, "")).
			SetURLRemote(remote).
			SetScanSchedule(sched).
			SetNillableNextScanAt(schedule.NextAfter(sched, nowUTC())).
			SetUserID(u.ID).
			SetNillableGroupID(input.GroupID)
		applySourceOptions(m.Mutation(), opts)
	}
	return r.saveSourceAndScan(ctx, u, build, files)
}

// requireGroupData checks the caller may put data in a group: edit_data or
// more, or a site administrator.
func (r *Resolver) requireGroupData(ctx context.Context, groupID int) error {
	gc, err := r.callerInGroup(ctx, groupID, auth.ScopeSourcesWrite)
	if apperr.CodeOf(err) == apperr.NotFound {
		return apperr.Field("group", "Group does not exist.")
	}
	if err != nil {
		return err
	}
	if !gc.p.IsSiteAdmin() && !access.AtLeast(gc.perm, groupmembership.PermissionEditData) {
		return apperr.New(apperr.PermissionDenied, "You need edit_data on group %d to add sources to it.", groupID)
	}
	return nil
}

func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
