package graph

import (
	"context"
	"net/url"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/audit"
)

// sourceFields are the audited fields of a source: never its user name,
// password or the user part of its URL.
func sourceFields(s *ent.Source) map[string]any {
	m := map[string]any{"type": string(s.Type), "title": s.Title, "description": s.Description,
		"url_remote": withoutUserinfo(s.URLRemote), "ssl_verify": s.SslVerify, "folders": s.Folders,
		"schemas": s.Schemas, "endpoint": withoutUserinfo(s.Endpoint), "region": s.Region,
		"scan_schedule": s.ScanSchedule, "group_id": s.GroupID}
	return m
}

// withoutUserinfo drops the user and password a URL may carry.
func withoutUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// recordSource writes the audit entry of a source change through c, the
// change's transaction.
func recordSource(ctx context.Context, c *ent.Client, action string, s *ent.Source, before, after map[string]any) error {
	e := audit.Entry{Action: action, Target: audit.Target{Type: "source", ID: strconv.Itoa(s.ID), Label: s.Title},
		Before: before, After: after}
	if s.GroupID != nil {
		e.Groups = []int{*s.GroupID}
	}
	return audit.Record(ctx, c, e)
}

// updateSourceAudited runs the changes assembled on upd (built on
// r.Client, not run) in a transaction with their source.update entry,
// then reads the source back.
func (r *Resolver) updateSourceAudited(ctx context.Context, s *ent.Source, upd *ent.SourceUpdateOne) (*ent.Source, error) {
	err := r.withTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		u := tx.Source.UpdateOne(s)
		if err := copyMutation(u.Mutation(), upd.Mutation()); err != nil {
			return err
		}
		saved, err := u.Save(ctx)
		if err != nil {
			return err
		}
		b, a := audit.Changed(sourceFields(s), sourceFields(saved))
		if s.Username != saved.Username || s.Password != saved.Password {
			// That they changed, never what they are.
			b["sign_in_details"], a["sign_in_details"] = "unchanged", "changed"
		}
		return recordSource(ctx, tx, "source.update", saved, b, a)
	})
	if err != nil {
		return nil, err
	}
	return r.Client.Source.Get(ctx, s.ID)
}
