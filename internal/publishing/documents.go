package publishing

import (
	"context"
	"strconv"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/documentversion"
	"github.com/geopub/geopub/internal/audit"
	"github.com/geopub/geopub/internal/notify"
)

// PublishDocumentVersion makes draft v its document d's published version
// on tx, at now: the previous one is superseded, d takes v's name, and
// v's creator is notified. Documents have no import to wait for, so they
// publish at once rather than through a publish group. Run it in a
// transaction.
func PublishDocumentVersion(ctx context.Context, tx *ent.Client, hub *notify.Hub, d *ent.Document, v *ent.DocumentVersion, now time.Time) error {
	if _, err := tx.DocumentVersion.Update().
		Where(documentversion.DocumentID(d.ID), documentversion.StateEQ(documentversion.StatePublished)).
		SetState(documentversion.StateSuperseded).Save(ctx); err != nil {
		return err
	}
	if err := tx.DocumentVersion.UpdateOneID(v.ID).SetState(documentversion.StatePublished).SetPublishedAt(now).Exec(ctx); err != nil {
		return err
	}
	upd := tx.Document.UpdateOneID(d.ID).SetPublishedVersionID(v.ID).SetPublishedAt(now).SetName(v.Name)
	if d.FirstPublishedAt == nil {
		upd.SetFirstPublishedAt(now)
	}
	if err := upd.Exec(ctx); err != nil {
		return err
	}
	if err := audit.Record(ctx, tx, publishEntry("document", strconv.Itoa(d.ID), v.Name, d.GroupID, d.PublishedVersionID, v.ID, 0)); err != nil {
		return err
	}
	_, err := hub.Publish(ctx, tx, v.CreatedBy, "publish.completed", map[string]any{"document_id": d.ID, "version_id": v.ID})
	return err
}
