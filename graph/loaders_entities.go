package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
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

// primePeople loads the owning users and groups of a page of datasets in
// one query each, for LookupUser and DatasetGroup; owner returns a
// dataset's user and group.
func primePeople[T any](ctx context.Context, c *ent.Client, items []T, owner func(T) (int, *int)) error {
	var userIDs, groupIDs []int
	for _, it := range items {
		u, g := owner(it)
		userIDs = append(userIDs, u)
		if g != nil {
			groupIDs = append(groupIDs, *g)
		}
	}
	l := loadersFrom(ctx)
	us, err := c.User.Query().Where(user.IDIn(userIDs...)).All(ctx)
	if err != nil {
		return err
	}
	l.primeUsers(us)
	if len(groupIDs) > 0 {
		gs, err := c.Group.Query().Where(group.IDIn(groupIDs...)).All(ctx)
		if err != nil {
			return err
		}
		l.primeGroups(gs)
	}
	return nil
}

// LookupUser returns a user named by a dataset record (its owner, a
// version's creator, a requester), from the users a list primed when it
// can: each user costs at most one query per request.
func (r *Resolver) LookupUser(ctx context.Context, userID int) (*ent.User, error) {
	return loadersFrom(ctx).user(ctx, r.Client, userID)
}

// DatasetGroup returns a dataset's owning group, from the groups a list
// primed when it can.
func (r *Resolver) DatasetGroup(ctx context.Context, groupID int) (*ent.Group, error) {
	return loadersFrom(ctx).group(ctx, r.Client, groupID)
}

// levelKey names one dataset or source in the level memo.
type levelKey struct {
	kind access.Kind
	id   int
}

// level returns the caller's remembered level on a dataset or source,
// computing it with load the first time.
func (l *loaders) level(kind access.Kind, id int, load func() (access.Level, error)) (access.Level, error) {
	k := levelKey{kind, id}
	l.mu.Lock()
	lv, ok := l.levels[k]
	l.mu.Unlock()
	if ok {
		return lv, nil
	}
	lv, err := load()
	if err != nil {
		return access.None, err
	}
	l.mu.Lock()
	l.levels[k] = lv
	l.mu.Unlock()
	return lv, nil
}

// forgetLevels drops remembered levels after a permission change.
func (l *loaders) forgetLevels() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.levels = map[levelKey]access.Level{}
}

// source returns a source by id, loaded once per request.
func (l *loaders) source(ctx context.Context, c *ent.Client, id int) (*ent.Source, error) {
	l.mu.Lock()
	s, ok := l.sources[id]
	l.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := c.Source.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.sources[id] = s
	l.mu.Unlock()
	return s, nil
}

// managedUsers returns the users the caller manages through a group,
// loaded with load once per request.
func (l *loaders) managedUsers(load func() (map[int]bool, error)) (map[int]bool, error) {
	l.mu.Lock()
	m := l.managed
	l.mu.Unlock()
	if m != nil {
		return m, nil
	}
	m, err := load()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.managed = m
	l.mu.Unlock()
	return m, nil
}
