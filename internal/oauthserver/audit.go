package oauthserver

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/audit"
)

// Audit actions of the authorization server, beside the token.create and
// token.delete entries package auth writes for the access tokens.
const (
	actionClientCreate = "oauth_client.create"
	actionClientUpdate = "oauth_client.update"
	actionClientDelete = "oauth_client.delete"
	actionConsent      = "oauth_grant.consent"
	actionGrantRevoke  = "oauth_grant.revoke"
)

// Why a grant was revoked, as its oauth_grant.revoke entry says.
const (
	revokedByClient     = "revoked by the client (RFC 7009)"
	revokedCodeReused   = "the authorization code was used twice"
	revokedRefreshReuse = "a rotated refresh token was used again"
)

// clientTarget names c in the audit log.
func clientTarget(c *ent.OAuthClient) audit.Target {
	return audit.Target{Type: "oauth_client", ID: strconv.Itoa(c.ID), Label: c.Name}
}

// clientFields are the audited fields of c: never its secret.
func clientFields(c *ent.OAuthClient) map[string]any {
	return map[string]any{"client_id": c.ClientID, "name": c.Name, "confidential": c.Confidential,
		"redirect_uris": c.RedirectUris, "scope": c.Scope}
}

// asClient is ctx with client c, acting for the user of a grant, as the
// actor: the token and revocation endpoints authenticate the client, not
// a user.
func asClient(ctx context.Context, c *ent.OAuthClient, userID int) context.Context {
	return audit.WithActor(ctx, audit.Actor{Kind: audit.ActorOAuthClient, UserID: &userID,
		Label: c.Name + " (" + c.ClientID + ")"})
}

// grantTarget names grant g of client c in the audit log.
func grantTarget(c *ent.OAuthClient, g *ent.OAuthGrant) audit.Target {
	return audit.Target{Type: "oauth_grant", ID: strconv.Itoa(g.ID), Label: c.Name}
}
