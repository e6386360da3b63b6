package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Liveness: a process that works jobs holds, for as long as it lives, a
// lock named by its River client ID that the operating system or the
// database releases the moment the process dies: an flock on a file next
// to the SQLite database (every process on one SQLite file shares its
// host), or a session advisory lock on PostgreSQL (the server drops it
// with the dead process's connection). Another process that finds a job
// running under a client ID whose lock is free knows the attempt is dead
// and rescues it at once, instead of waiting for River's stuck-job rescuer
// (which waits for the job's whole timeout, hours for an import).
//
// One caveat on PostgreSQL: if the lock's connection alone breaks while
// the process lives, the lock is taken again at the next check, and in
// between another process may run a job this one is still running. The
// jobs here tolerate that: an import is one transaction that holds a lock
// on its version, so a second attempt waits for the first and then
// replaces its rows.

// clientIDPrefix marks the River client IDs of processes that hold a
// liveness lock; jobs attempted by other clients are left to River's own
// rescuer.
const clientIDPrefix = "geopub-"

// newClientID is a River client ID unique to this process and client.
func newClientID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	id := fmt.Sprintf("%s%d-%s-%s", clientIDPrefix, os.Getpid(), hex.EncodeToString(b[:]), host)
	if len(id) > 100 { // River's limit
		id = id[:100]
	}
	return id
}

// liveness is one dialect's lock.
type liveness interface {
	// hold takes this client's lock for the life of the process (until
	// release).
	hold(ctx context.Context, id string) error
	// alive reports whether the client id holds its lock.
	alive(ctx context.Context, id string) (bool, error)
	// exclusive runs fn unless another process is rescuing already, so two
	// rescuers never rescue one attempt twice; ran is false when it
	// skipped fn.
	exclusive(ctx context.Context, fn func() error) (ran bool, err error)
	// release drops this client's lock.
	release()
}

// fileLiveness holds flocks in a folder next to the SQLite database.
type fileLiveness struct {
	dir string
	own *os.File
}

// sqlitePath returns the file of a SQLite DSN, or "" for an in-memory
// database.
func sqlitePath(dsn string) string {
	p, _, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	if p == "" || strings.Contains(p, ":memory:") || strings.Contains(dsn, "mode=memory") {
		return ""
	}
	return p
}

func (l *fileLiveness) lockFile(name string) string {
	return filepath.Join(l.dir, name+".lock")
}

func (l *fileLiveness) hold(_ context.Context, id string) error {
	if err := os.MkdirAll(l.dir, 0o750); err != nil {
		return fmt.Errorf("jobs: liveness folder: %w", err)
	}
	f, err := os.OpenFile(l.lockFile(id), os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return fmt.Errorf("jobs: liveness lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return fmt.Errorf("jobs: liveness lock %s: %w", id, err)
	}
	l.own = f
	return nil
}

func (l *fileLiveness) alive(_ context.Context, id string) (bool, error) {
	f, err := os.OpenFile(l.lockFile(id), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil // never held here, or released by a clean stop
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	// The holder is gone: remove its file (still locked by us, so a
	// concurrent checker sees either the lock or no file).
	_ = os.Remove(f.Name())
	return false, nil
}

func (l *fileLiveness) exclusive(_ context.Context, fn func() error) (bool, error) {
	f, err := os.OpenFile(l.lockFile("rescuer"), os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return false, err
	}
	defer f.Close() // closing drops the flock
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, fn()
}

func (l *fileLiveness) release() {
	if l.own != nil {
		_ = os.Remove(l.own.Name())
		l.own.Close()
		l.own = nil
	}
}

// pgLiveness holds a session advisory lock on a connection of its own,
// taken out of the pool (so closing the pool never waits for it).
type pgLiveness struct {
	pool *pgxpool.Pool
	own  *pgx.Conn
	id   string
}

// livenessClass is the first key of Geopub's advisory locks ("GPjb"); the
// second is a hash of the client ID, or 0 for the rescuer's lock. A hash
// collision only makes a dead client look alive: its jobs then wait for
// River's rescuer, as before.
const livenessClass int32 = 0x47506a62

func lockKey(id string) int32 {
	h := fnv.New32a()
	h.Write([]byte(id))
	k := int32(h.Sum32() & 0x7fffffff)
	if k == 0 {
		k = 1
	}
	return k
}

func (l *pgLiveness) hold(ctx context.Context, id string) error {
	pc, err := l.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("jobs: liveness connection: %w", err)
	}
	c := pc.Hijack()
	if _, err := c.Exec(ctx, "SELECT pg_advisory_lock($1, $2)", livenessClass, lockKey(id)); err != nil {
		closeConn(c)
		return fmt.Errorf("jobs: liveness lock: %w", err)
	}
	l.own, l.id = c, id
	return nil
}

// check takes the lock again on a new connection when the old one broke
// (a database restart drops it with every session).
func (l *pgLiveness) check(ctx context.Context) error {
	if l.own == nil || l.own.Ping(ctx) == nil {
		return nil
	}
	l.drop()
	return l.hold(ctx, l.id)
}

func (l *pgLiveness) alive(ctx context.Context, id string) (bool, error) {
	var held bool
	err := l.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 2
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND classid::bigint = $1 AND objid::bigint = $2)`, int64(livenessClass), int64(lockKey(id))).Scan(&held)
	return held, err
}

func (l *pgLiveness) exclusive(ctx context.Context, fn func() error) (bool, error) {
	if l.own == nil {
		return false, nil // released: this client has stopped
	}
	if err := l.check(ctx); err != nil {
		return false, err
	}
	var got bool
	if err := l.own.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, 0)", livenessClass).Scan(&got); err != nil || !got {
		return false, err
	}
	defer l.own.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1, 0)", livenessClass)
	return true, fn()
}

// drop closes the lock's connection, which ends its session and lock.
func (l *pgLiveness) drop() {
	if l.own != nil {
		closeConn(l.own)
		l.own = nil
	}
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// release unlocks before it closes: the server ends a closed session, and
// with it the lock, a moment after the client has gone, and until then
// another process would still see this client alive.
func (l *pgLiveness) release() {
	if l.own != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = l.own.Exec(ctx, "SELECT pg_advisory_unlock_all()")
		cancel()
	}
	l.drop()
}
