package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"

	"modernc.org/sqlite"
)

// Whether a statement outside a transaction writes decides whether it
// queues at the write gate, so the answer comes from SQLite itself, not
// from the statement's first word (a read that begins WITH once queued
// behind every writer while holding a pooled connection, issue 24): each
// file's gate keeps one classifier connection that compiles statements it
// has not seen under an authorizer, and a statement is a write when SQLite
// asked to authorize any action that changes a database (insert, update,
// delete, schema changes, transactions, attach, analyze). Compiling runs
// nothing and takes no lock. PRAGMA statements count as reads: the
// service sets its pragmas through Exec, which always passes the gate.
//
// Answers are kept by SQL text; the service asks a few hundred distinct
// questions, and texts that differ per call (IN lists of varying length)
// churn the cache, which is emptied when full rather than grown.

// classifyCacheSize bounds the texts one gate remembers.
const classifyCacheSize = 4096

// classifier answers whether SQL text only reads, for one database file.
type classifier struct {
	dsn  string
	base driver.Driver

	mu    sync.Mutex
	known map[string]bool // text -> read-only
	conn  driver.Conn     // compiles unseen texts; nil until first needed
	wrote bool            // set by the authorizer while conn compiles
}

// readOnly reports whether query only reads. A text SQLite cannot compile
// counts as a write (its real run reports the error).
func (c *classifier) readOnly(query string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ro, ok := c.known[query]; ok {
		return ro
	}
	ro, err := c.compile(query)
	if err != nil {
		return false
	}
	if c.known == nil || len(c.known) >= classifyCacheSize {
		c.known = make(map[string]bool)
	}
	c.known[query] = ro
	return ro
}

// compile prepares query on the classifier connection and reports whether
// SQLite authorized no writing action while it did.
func (c *classifier) compile(query string) (bool, error) {
	if c.conn == nil {
		conn, err := c.base.Open(c.dsn)
		if err != nil {
			return false, err
		}
		reg, ok := conn.(sqlite.AuthorizerRegisterer)
		if !ok {
			conn.Close()
			return false, fmt.Errorf("store: the SQLite driver's connection has no authorizer")
		}
		if err := reg.RegisterAuthorizer(c.authorize); err != nil {
			conn.Close()
			return false, err
		}
		c.conn = conn
	}
	c.wrote = false
	st, err := c.conn.(driver.ConnPrepareContext).PrepareContext(context.Background(), query)
	if err != nil {
		return false, err
	}
	st.Close()
	return !c.wrote, nil
}

// authorize allows every action and notes the writing ones.
func (c *classifier) authorize(action sqlite.AuthorizerActionCode, _, _, _, _ string) sqlite.AuthorizerReturnCode {
	if writes(action) {
		c.wrote = true
	}
	return sqlite.AuthorizerOK
}

// writes reports whether an authorizer action changes a database.
func writes(action sqlite.AuthorizerActionCode) bool {
	switch action {
	case sqlite.AuthRead, sqlite.AuthSelect, sqlite.AuthFunction, sqlite.AuthRecursive, sqlite.AuthPragma:
		return false
	}
	return true
}
