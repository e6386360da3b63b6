package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
)

// primeUsers remembers users a list resolver loaded in one query, for the
// per-item resolvers that name them.
func (l *loaders) primeUsers(us []*ent.User) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range us {
		l.users[u.ID] = u
	}
}

// primeGroups is primeUsers for groups.
func (l *loaders) primeGroups(gs []*ent.Group) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range gs {
		l.groupByID[g.ID] = g
	}
}

// user returns a user, primed or loaded.
func (l *loaders) user(ctx context.Context, c *ent.Client, id int) (*ent.User, error) {
	l.mu.Lock()
	u, ok := l.users[id]
	l.mu.Unlock()
	if ok {
		return u, nil
	}
	u, err := c.User.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	l.primeUsers([]*ent.User{u})
	return u, nil
}

// group returns a group, primed or loaded.
func (l *loaders) group(ctx context.Context, c *ent.Client, id int) (*ent.Group, error) {
	l.mu.Lock()
	g, ok := l.groupByID[id]
	l.mu.Unlock()
	if ok {
		return g, nil
	}
	g, err := c.Group.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	l.primeGroups([]*ent.Group{g})
	return g, nil
}
