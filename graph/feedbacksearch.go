package graph

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/feedback"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/paging"
)

// searchFeedback returns a page of the feedback items the caller may see,
// newest first, filtered as input says. The caller's scope is checked by
// the entry point (/comments/ or an item's feedback).
func (r *Resolver) searchFeedback(ctx context.Context, input *FeedbackSearchInput) (*FeedbackPage, error) {
	if input == nil {
		input = &FeedbackSearchInput{}
	}
	pg, err := paging.New(input.Page, input.PageSize, paging.MaxSize)
	if err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	vis, err := r.feedbackVisible(ctx, p)
	if err != nil {
		return nil, err
	}
	preds := []predicate.Feedback{vis}
	if input.Type != nil {
		if *input.Type == FeedbackTypeTicket {
			preds = append(preds, feedback.StatusNEQ(""))
		} else {
			preds = append(preds, feedback.Status(""))
		}
	}
	if t := input.TicketedObjectType; t != nil {
		if k, err := r.feedbackKindOf(ctx, *t, p); err != nil || k == nil {
			if err == nil {
				err = unsupportedTarget("ticketed_object.type", *t)
			}
			return nil, err
		}
		preds = append(preds, feedback.TargetType(*t))
	}
	if input.TicketedObjectID != nil {
		if input.TicketedObjectType == nil {
			return nil, apperr.Field("ticketed_object.id", "Give ticketed_object.type with ticketed_object.id.")
		}
		preds = append(preds, feedback.TargetID(*input.TicketedObjectID))
	}
	if len(input.Statuses) > 0 {
		if err := checkStatusFilter(input.Statuses); err != nil {
			return nil, err
		}
		preds = append(preds, feedback.StatusIn(input.Statuses...))
	}
	items, info, err := listPage[*ent.FeedbackQuery](ctx, r.Client.Feedback.Query().Where(preds...).Order(feedback.ByID(entsql.OrderDesc())), pg)
	if err != nil {
		return nil, err
	}
	return &FeedbackPage{Items: items, PageInfo: info}, nil
}
