package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// KeyFromAuthorization returns the API key of an Authorization value of the
// "key" or "Bearer" scheme (case-insensitive), as the middleware accepts.
func KeyFromAuthorization(value string) (string, bool) {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(value), " ")
	if strings.EqualFold(scheme, "key") || strings.EqualFold(scheme, "bearer") {
		return strings.TrimSpace(rest), true
	}
	return "", false
}

// AuthenticateKey checks an API key presented outside the request headers
// (the connection_init payload of a GraphQL websocket) exactly as the
// middleware checks an Authorization header; referer is the request's
// Referer, checked against the token's rules. The error's message is safe
// to show.
func (s *Service) AuthenticateKey(ctx context.Context, key, referer string) (Principal, error) {
	r := &http.Request{Header: http.Header{}}
	if referer != "" {
		r.Header.Set("Referer", referer)
	}
	p, f := s.authenticateToken(ctx, r, key, false)
	if f != nil {
		return Principal{}, errors.New(f.detail)
	}
	return p, nil
}
