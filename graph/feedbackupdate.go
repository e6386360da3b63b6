package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// feedbackEdit is one checked PUT on a feedback item: the item's new
// property values, the changes to record and the update record's content.
type feedbackEdit struct {
	r       *Resolver
	item    *ent.Feedback
	actor   int
	changes changeSet
	// the item's properties after the update
	status, subStatus, title, tags string
	assignee                       *int
	// the update record
	description string
	internal    bool
	attachments []int
	permalink   *string
}

// checkFeedbackText bounds the short text properties.
func checkFeedbackText(title, tags string) error {
	if len(title) > 500 {
		return apperr.Field("title", "Ensure this field has no more than 500 characters.")
	}
	if len(tags) > 1000 {
		return apperr.Field("tags", "Ensure this field has no more than 1000 characters.")
	}
	return nil
}

// feedbackUpdate checks a PUT on f by the caller. Anyone who may see the
// item may add an update (a reply). Changing the status needs the author,
// the assignee or an administrator of the item; title and tags the author
// or an administrator; sub_status, assignee and internal updates an
// administrator.
func (r *Resolver) feedbackUpdate(ctx context.Context, f *ent.Feedback, in UpdateFeedbackInput) (*feedbackEdit, error) {
	p := auth.FromContext(ctx)
	admin, err := r.administers(ctx, f, p)
	if err != nil {
		return nil, err
	}
	me := p.User.ID
	author := f.CreatedBy == me
	assigned := f.AssigneeID != nil && *f.AssigneeID == me
	e := &feedbackEdit{r: r, item: f, actor: me, changes: changeSet{}, status: f.Status, subStatus: f.SubStatus,
		title: f.Title, tags: f.Tags, assignee: f.AssigneeID, description: ptrOr(in.Description, "")}
	if in.Status != nil {
		to := strings.TrimSpace(*in.Status)
		if err := checkTransition(f.Status, to); err != nil {
			return nil, err
		}
		if to != f.Status && !admin && !author && !assigned {
			return nil, apperr.New(apperr.PermissionDenied, "Only the author, the assignee and the item's administrators may change its status.")
		}
		e.status = to
	}
	if in.SubStatus != nil && strings.TrimSpace(*in.SubStatus) != f.SubStatus {
		if !admin {
			return nil, apperr.New(apperr.PermissionDenied, "Only the item's administrators may set sub_status.")
		}
		if e.status == "" {
			return nil, apperr.Field("sub_status", "Only a ticket has a sub_status: give it a status too.")
		}
		if e.subStatus = strings.TrimSpace(*in.SubStatus); len(e.subStatus) > 200 {
			return nil, apperr.Field("sub_status", "Ensure this field has no more than 200 characters.")
		}
	}
	if err := e.assign(ctx, in, admin); err != nil {
		return nil, err
	}
	if in.Title != nil || in.Tags != nil {
		title, tags := strings.TrimSpace(ptrOr(in.Title, f.Title)), strings.TrimSpace(ptrOr(in.Tags, f.Tags))
		if (title != f.Title || tags != f.Tags) && !admin && !author {
			return nil, apperr.New(apperr.PermissionDenied, "Only the author and the item's administrators may change its title and tags.")
		}
		if err := checkFeedbackText(title, tags); err != nil {
			return nil, err
		}
		e.title, e.tags = title, tags
	}
	if e.internal = ptrOr(in.IsInternal, false); e.internal && !admin {
		return nil, apperr.New(apperr.PermissionDenied, "Only the item's administrators may write internal updates.")
	}
	if e.attachments, err = r.checkAttachments(ctx, in.Attachments); err != nil {
		return nil, err
	}
	link, err := checkPermalink(ptrOr(in.PermalinkURL, ""))
	if err != nil {
		return nil, err
	}
	if link != "" {
		e.permalink = &link
	}
	e.changes.record("status", f.Status, e.status)
	e.changes.record("sub_status", f.SubStatus, e.subStatus)
	e.changes.record("assignee", intOrNil(f.AssigneeID), intOrNil(e.assignee))
	e.changes.record("title", f.Title, e.title)
	e.changes.record("tags", f.Tags, e.tags)
	return e, nil
}

// assign checks a change of assignee: administrators only, to a user who
// administers the item (so the assignee can see all of it), or to nobody.
func (e *feedbackEdit) assign(ctx context.Context, in UpdateFeedbackInput, admin bool) error {
	unassign := ptrOr(in.Unassign, false)
	if !unassign && in.AssigneeID == nil {
		return nil
	}
	if unassign && in.AssigneeID != nil {
		return apperr.Field("assignee", "Give an assignee or unassign, not both.")
	}
	to := in.AssigneeID
	if intOrNil(to) == intOrNil(e.item.AssigneeID) {
		return nil
	}
	if !admin {
		return apperr.New(apperr.PermissionDenied, "Only the item's administrators may assign it.")
	}
	if to != nil {
		u, err := e.r.Client.User.Get(ctx, *to)
		if ent.IsNotFound(err) {
			return apperr.Field("assignee", fmt.Sprintf("There is no user %d.", *to))
		}
		if err != nil {
			return err
		}
		ok, err := e.r.administers(ctx, e.item, auth.Principal{Method: auth.SessionAuth, User: u})
		if err != nil {
			return err
		}
		if !ok {
			return apperr.Field("assignee", fmt.Sprintf("User %d cannot administer this item: assign a site administrator or someone who may edit its ticketed object.", *to))
		}
	}
	e.assignee = to
	return nil
}

// save applies the edit in one transaction: the item's new properties, its
// updated_at, the update record, and notifications for its author and
// assignee when its status or assignee changed.
func (e *feedbackEdit) save(ctx context.Context) (*ent.FeedbackRecord, error) {
	var rec *ent.FeedbackRecord
	err := e.r.withTx(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.Feedback.UpdateOneID(e.item.ID).SetStatus(e.status).SetSubStatus(e.subStatus).
			SetTitle(e.title).SetTags(e.tags)
		if e.assignee == nil {
			upd.ClearAssigneeID()
		} else {
			upd.SetAssigneeID(*e.assignee)
		}
		if err := upd.Exec(ctx); err != nil {
			return err
		}
		var err error
		rec, err = tx.FeedbackRecord.Create().SetFeedbackID(e.item.ID).SetDescription(e.description).
			SetChanges(map[string]any(e.changes)).SetIsInternal(e.internal).SetAttachments(e.attachments).
			SetNillablePermalinkURL(e.permalink).SetCreatedBy(e.actor).Save(ctx)
		if err != nil {
			return err
		}
		return e.notify(ctx, tx)
	})
	return rec, err
}

// notify tells the author and the assignee (not the one acting) that the
// item's status changed, and a new assignee that the item is theirs.
func (e *feedbackEdit) notify(ctx context.Context, c *ent.Client) error {
	if e.changes.has("assignee") && e.assignee != nil && *e.assignee != e.actor {
		if err := e.r.notify(ctx, c, *e.assignee, "feedback.assigned",
			map[string]any{"feedback_id": e.item.ID, "assignee_id": *e.assignee}); err != nil {
			return err
		}
	}
	if !e.changes.has("status") {
		return nil
	}
	to := []int{e.item.CreatedBy}
	if e.assignee != nil {
		to = append(to, *e.assignee)
	}
	for _, uid := range uniqueInts(to) {
		if uid == e.actor {
			continue
		}
		if err := e.r.notify(ctx, c, uid, "feedback.status_changed",
			map[string]any{"feedback_id": e.item.ID, "from": e.item.Status, "to": e.status}); err != nil {
			return err
		}
	}
	return nil
}
