package accounts

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/accessrequest"
	"github.com/geopub/geopub/ent/datasetaccessrequest"
	"github.com/geopub/geopub/ent/datasetfollow"
	"github.com/geopub/geopub/ent/datasetmark"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/export"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/ent/notification"
	"github.com/geopub/geopub/ent/oauthgrant"
	"github.com/geopub/geopub/ent/oauthrefreshtoken"
	"github.com/geopub/geopub/ent/session"
	"github.com/geopub/geopub/ent/token"
	"github.com/geopub/geopub/ent/webhookdelivery"
	"github.com/geopub/geopub/ent/webhookendpoint"
)

// deletePersonal deletes, in transaction c, what was user id's alone:
// credentials (tokens, sessions, the OAuth grants they consented to with
// their refresh tokens), memberships, access requests to groups
// and datasets, notifications, follows, stars and pins, the grants left
// on others' datasets (after transfer), exports (private to their maker;
// it returns the keys of their files, removed after the commit) and
// webhooks no group owns (they received what the user could see).
func deletePersonal(ctx context.Context, c *ent.Client, id int) ([]string, error) {
	var keys []string
	exps, err := c.Export.Query().Where(export.UserID(id), export.BlobKeyNEQ("")).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range exps {
		keys = append(keys, e.BlobKey)
	}
	hooks, err := c.WebhookEndpoint.Query().Where(webhookendpoint.UserID(id), webhookendpoint.GroupIDIsNil()).IDs(ctx)
	if err != nil {
		return nil, err
	}
	grants, err := c.OAuthGrant.Query().Where(oauthgrant.UserID(id)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	steps := []func() error{
		func() error { _, err := c.Token.Delete().Where(token.UserID(id)).Exec(ctx); return err },
		func() error {
			_, err := c.OAuthRefreshToken.Delete().Where(oauthrefreshtoken.GrantIDIn(grants...)).Exec(ctx)
			return err
		},
		func() error { _, err := c.OAuthGrant.Delete().Where(oauthgrant.IDIn(grants...)).Exec(ctx); return err },
		func() error { _, err := c.Session.Delete().Where(session.UserID(id)).Exec(ctx); return err },
		func() error {
			_, err := c.GroupMembership.Delete().Where(groupmembership.UserID(id)).Exec(ctx)
			return err
		},
		func() error { _, err := c.AccessRequest.Delete().Where(accessrequest.UserID(id)).Exec(ctx); return err },
		func() error {
			_, err := c.DatasetAccessRequest.Delete().Where(datasetaccessrequest.UserID(id)).Exec(ctx)
			return err
		},
		func() error { _, err := c.Notification.Delete().Where(notification.UserID(id)).Exec(ctx); return err },
		func() error { _, err := c.DatasetFollow.Delete().Where(datasetfollow.UserID(id)).Exec(ctx); return err },
		func() error { _, err := c.DatasetMark.Delete().Where(datasetmark.UserID(id)).Exec(ctx); return err },
		func() error {
			_, err := c.DatasetPermission.Delete().Where(datasetpermission.SubjectEQ(datasetpermission.SubjectUser),
				datasetpermission.SubjectID(id)).Exec(ctx)
			return err
		},
		func() error { _, err := c.Export.Delete().Where(export.UserID(id)).Exec(ctx); return err },
		func() error {
			if len(hooks) == 0 {
				return nil
			}
			if _, err := c.WebhookDelivery.Delete().Where(webhookdelivery.EndpointIDIn(hooks...)).Exec(ctx); err != nil {
				return err
			}
			_, err := c.WebhookEndpoint.Delete().Where(webhookendpoint.IDIn(hooks...)).Exec(ctx)
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
