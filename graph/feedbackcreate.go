package graph

import (
	"context"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

// createFeedback stores a new comment or ticket by u, checking the input:
// a description, a starting status of none or open, a ticketed object the
// caller may see, visible attachments and a safe permalink. The caller's
// scope is checked by the entry point (/comments/ or an item's feedback).
func (r *Resolver) createFeedback(ctx context.Context, u *ent.User, input CreateFeedbackInput) (*ent.Feedback, error) {
	if strings.TrimSpace(input.Description) == "" {
		return nil, apperr.Field("description", "This field is required.")
	}
	status := strings.TrimSpace(ptrOr(input.Status, ""))
	if status != "" && status != "open" {
		return nil, apperr.Field("status", "A new ticket starts open: give status open, or none for a comment, and change it afterwards.")
	}
	title, tags := strings.TrimSpace(ptrOr(input.Title, "")), strings.TrimSpace(ptrOr(input.Tags, ""))
	if err := checkFeedbackText(title, tags); err != nil {
		return nil, err
	}
	create := r.Client.Feedback.Create().SetDescription(input.Description).SetStatus(status).
		SetTitle(title).SetTags(tags).SetCreatedBy(u.ID)
	if t := input.TicketedObject; t != nil {
		typ := strings.TrimSpace(t.Type)
		if err := r.feedbackTarget(ctx, typ, t.ID); err != nil {
			return nil, err
		}
		create.SetTargetType(typ).SetTargetID(t.ID)
	}
	ids, err := r.checkAttachments(ctx, input.Attachments)
	if err != nil {
		return nil, err
	}
	link, err := checkPermalink(ptrOr(input.PermalinkURL, ""))
	if err != nil {
		return nil, err
	}
	return create.SetAttachments(ids).SetPermalinkURL(link).Save(ctx)
}
