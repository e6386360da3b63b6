package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/geopub/geopub/internal/store"
)

// Config tunes New. The zero value works jobs with the defaults below.
type Config struct {
	// Workers is how many jobs of QueueLocal run at once (default 4).
	Workers int
	// RemoteWorkers is how many jobs of QueueRemote, the jobs that
	// download from remote servers, run at once (default 2).
	RemoteWorkers int
	// PerUser is how many jobs of one kind one user's work may hold at
	// once (default 2); further jobs wait, snoozed for FairSnooze
	// (default 5s), while other users' jobs run. Only jobs inserted with
	// For count.
	PerUser    int
	FairSnooze time.Duration
	// InsertOnly builds a client that inserts, cancels and reads jobs but
	// never works them (processes that leave the work to `geopub worker`).
	InsertOnly bool
	// Logger receives River's logs (default: discarded).
	Logger *slog.Logger

	// MaxAttempts is how many times a job runs before it is discarded
	// (default 10). A job's InsertOpts.MaxAttempts overrides it.
	MaxAttempts int
	// Retry is the backoff between attempts (default DefaultRetry).
	Retry Backoff
	// StopTimeout is how long Stop waits for running jobs before it
	// cancels their contexts (default 30s).
	StopTimeout time.Duration
	// JobTimeout bounds one attempt; its context is cancelled after it
	// (default 30 minutes; a worker's Timeout method overrides it).
	JobTimeout time.Duration
	// RescueStuckJobsAfter is how long a job may stay running before River
	// assumes its process died and makes it available again (River's
	// default, one hour, when zero). Keep it above the longest job.
	RescueStuckJobsAfter time.Duration
	// FetchPollInterval and FetchCooldown are River's fetch timings
	// (River's defaults when zero; tests shorten them). Inserts wake
	// workers sooner: LISTEN/NOTIFY on PostgreSQL, and on SQLite River's
	// notification table, which its listener polls every 50 ms.
	FetchPollInterval time.Duration
	FetchCooldown     time.Duration
	// OrphanCheckInterval is how often a working client looks for jobs
	// left running by processes that died, and makes them run again
	// (default 10s; it also looks as it starts). See liveness.go.
	OrphanCheckInterval time.Duration
	// Periodic are River periodic jobs the elected leader among the
	// working clients enqueues on their schedules (internal/schedule's
	// tick); ignored on an InsertOnly client.
	Periodic []*river.PeriodicJob
}

const (
	defaultWorkers     = 4
	defaultMaxAttempts = 10
	defaultStopTimeout = 30 * time.Second
	defaultJobTimeout  = 30 * time.Minute
)

// client is what Jobs needs of a River client, whatever its driver.
type client interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobCancel(ctx context.Context, jobID int64) (*rivertype.JobRow, error)
	JobGet(ctx context.Context, jobID int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func())
}

// Jobs is the job client of one process.
type Jobs struct {
	st       *store.Store
	cfg      Config
	logger   *slog.Logger
	workers  *river.Workers // nil when InsertOnly
	client   client
	insertTx func(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	cancelTx func(ctx context.Context, tx *sql.Tx, jobID int64) (*rivertype.JobRow, error)
	closeDB  func()
	// poolStats reads the pool's figures (PoolStats).
	poolStats func() sql.DBStats
	// notifyControl sends a River control notification (SQLite only);
	// notifyControlTx sends it on a store transaction.
	notifyControl   func(ctx context.Context, payload string) error
	notifyControlTx func(ctx context.Context, tx *sql.Tx, payload string) error
	// id is the River client ID; live its liveness lock (nil when the
	// database has no file to lock next to); exec runs River's own
	// state changes for the orphan rescuer.
	id         string
	live       liveness
	exec       riverdriver.Executor
	abandoners map[string]abandonFunc
	// rescueMu serialises the rescuer's use of live in this process.
	rescueMu   sync.Mutex
	orphanStop chan struct{}
	orphanDone chan struct{}
	// fair is the per-user limit; its wake loop ends when unsubFair
	// closes its subscription, and then closes fairDone.
	fair      *perUser
	unsubFair func()
	fairDone  chan struct{}

	mu         sync.Mutex
	started    bool
	stopped    bool
	handlers   []func(context.Context, JobEvent)
	events     chan JobEvent
	emitMu     sync.RWMutex
	emitClosed bool
	done       chan struct{} // closed when the event loops have ended
	unsub      func()
}

// New builds the River client for the store's dialect. The client has its
// own pool to the same database: one connection to the SQLite file (River's
// recommendation, kept apart from the request pool), or a pgxpool to
// PostgreSQL. Close it with Stop (or Close when it never started).
func New(st *store.Store, cfg Config) (*Jobs, error) {
	if cfg.Workers == 0 && !cfg.InsertOnly {
		cfg.Workers = defaultWorkers
	}
	if cfg.Workers < 0 {
		return nil, fmt.Errorf("jobs: negative Workers %d", cfg.Workers)
	}
	if cfg.RemoteWorkers == 0 {
		cfg.RemoteWorkers = defaultRemoteWorkers
	}
	if cfg.PerUser == 0 {
		cfg.PerUser = defaultPerUser
	}
	if cfg.FairSnooze == 0 {
		cfg.FairSnooze = defaultFairSnooze
	}
	if cfg.RemoteWorkers < 0 || cfg.PerUser < 0 {
		return nil, fmt.Errorf("jobs: negative RemoteWorkers %d or PerUser %d", cfg.RemoteWorkers, cfg.PerUser)
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = defaultMaxAttempts
	}
	if cfg.Retry == (Backoff{}) {
		cfg.Retry = DefaultRetry
	}
	if cfg.JobTimeout == 0 {
		cfg.JobTimeout = defaultJobTimeout
	}
	if cfg.StopTimeout == 0 {
		cfg.StopTimeout = defaultStopTimeout
	}
	if cfg.OrphanCheckInterval == 0 {
		cfg.OrphanCheckInterval = defaultOrphanCheck
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	j := &Jobs{st: st, cfg: cfg, logger: logger, events: make(chan JobEvent, 256), done: make(chan struct{}),
		id: newClientID(), abandoners: map[string]abandonFunc{}}

	rc := &river.Config{
		ID:                   j.id,
		Logger:               logger,
		MaxAttempts:          cfg.MaxAttempts,
		RetryPolicy:          cfg.Retry,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueStuckJobsAfter,
		FetchPollInterval:    cfg.FetchPollInterval,
		FetchCooldown:        cfg.FetchCooldown,
	}
	if !cfg.InsertOnly {
		j.workers = river.NewWorkers()
		river.AddWorker(j.workers, pingWorker{})
		rc.Workers = j.workers
		rc.Queues = map[string]river.QueueConfig{
			QueueLocal:  {MaxWorkers: cfg.Workers},
			QueueRemote: {MaxWorkers: cfg.RemoteWorkers},
		}
		rc.Hooks = []rivertype.Hook{&runningHook{j: j}}
		j.fair = &perUser{j: j, limit: cfg.PerUser, snooze: cfg.FairSnooze,
			remoteLimit: min(cfg.PerUser, max(1, cfg.RemoteWorkers-1))}
		rc.Middleware = []rivertype.Middleware{j.fair}
		rc.PeriodicJobs = cfg.Periodic
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch st.Dialect {
	case dialect.SQLite:
		db, err := sql.Open(store.SQLiteDriver, st.DSN())
		if err != nil {
			return nil, fmt.Errorf("jobs: opening the SQLite pool: %w", err)
		}
		db.SetMaxOpenConns(1)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("jobs: connecting to SQLite: %w", err)
		}
		c, err := river.NewClient(riversqlite.New(db), rc)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("jobs: %w", err)
		}
		j.client, j.closeDB, j.poolStats = c, func() { db.Close() }, db.Stats
		if path := sqlitePath(st.DSN()); path != "" {
			j.live = &fileLiveness{dir: path + "-workers"}
		}
		j.insertTx = c.InsertTx // riversqlite works on the caller's *sql.Tx as it is
		exec := c.Driver().GetExecutor()
		j.exec = exec
		j.notifyControl = func(ctx context.Context, payload string) error {
			return exec.NotifyMany(ctx, &riverdriver.NotifyManyParams{Payload: []string{payload}, Topic: "river_control"})
		}
		j.cancelTx = c.JobCancelTx
		j.notifyControlTx = func(ctx context.Context, tx *sql.Tx, payload string) error {
			return c.Driver().UnwrapExecutor(tx).NotifyMany(ctx, &riverdriver.NotifyManyParams{Payload: []string{payload}, Topic: "river_control"})
		}
	case dialect.Postgres:
		pool, err := pgxpool.New(ctx, st.DSN())
		if err != nil {
			return nil, fmt.Errorf("jobs: opening the PostgreSQL pool: %w", err)
		}
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("jobs: connecting to PostgreSQL: %w", err)
		}
		c, err := river.NewClient(riverpgxv5.New(pool), rc)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("jobs: %w", err)
		}
		j.client, j.closeDB, j.poolStats = c, pool.Close, func() sql.DBStats { return pgxPoolStats(pool.Stat()) }
		j.live, j.exec = &pgLiveness{pool: pool}, c.Driver().GetExecutor()
		j.insertTx = func(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
			var res *rivertype.JobInsertResult
			err := onPgxTx(st, tx, func(ptx pgx.Tx) error {
				var err error
				res, err = c.InsertTx(ctx, ptx, args, opts)
				return err
			})
			return res, err
		}
		j.cancelTx = func(ctx context.Context, tx *sql.Tx, jobID int64) (*rivertype.JobRow, error) {
			var row *rivertype.JobRow
			err := onPgxTx(st, tx, func(ptx pgx.Tx) error {
				var err error
				row, err = c.JobCancelTx(ctx, ptx, jobID)
				return err
			})
			return row, err
		}
	default:
		return nil, fmt.Errorf("jobs: unsupported dialect %q", st.Dialect)
	}
	return j, nil
}

// Register adds the worker for job kind T. Call it before Start; workers
// registered on an InsertOnly client are an error, since it never works
// jobs.
func Register[T river.JobArgs](j *Jobs, w river.Worker[T]) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.workers == nil {
		return errors.New("jobs: Register on an insert-only client")
	}
	if j.started {
		return errors.New("jobs: Register after Start")
	}
	if err := river.AddWorkerSafely(j.workers, w); err != nil {
		return err
	}
	if a := abandonerOf(w); a != nil {
		var args T
		j.abandoners[args.Kind()] = a
	}
	return nil
}

// Start starts working jobs (and delivering events to OnEvent handlers)
// until Stop. On an InsertOnly client it only starts event delivery for
// Cancel.
func (j *Jobs) Start(ctx context.Context) error {
	j.mu.Lock()
	if j.started {
		j.mu.Unlock()
		return errors.New("jobs: already started")
	}
	j.started = true
	j.mu.Unlock()

	var riverEvents <-chan *river.Event
	if j.workers != nil {
		riverEvents, j.unsub = j.client.Subscribe(
			river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled,
			river.EventKindJobSnoozed, river.EventKindJobInterrupted)
	}
	go j.eventLoop(riverEvents)
	if j.workers == nil {
		return nil
	}
	// The liveness lock is held before the first job is taken and until
	// the last one has ended (Stop).
	if j.live != nil {
		if err := j.live.hold(ctx, j.id); err != nil {
			j.unsub()
			j.closeEvents()
			return err
		}
	}
	// The client keeps running past this call's context; Stop ends it.
	if err := j.client.Start(context.WithoutCancel(ctx)); err != nil {
		j.unsub()
		j.closeEvents()
		if j.live != nil {
			j.live.release()
		}
		return fmt.Errorf("jobs: starting: %w", err)
	}
	j.orphanStop, j.orphanDone = make(chan struct{}), make(chan struct{})
	go j.watchOrphans(j.orphanStop, j.orphanDone)
	var fairEvents <-chan *river.Event
	fairEvents, j.unsubFair = j.client.Subscribe(
		river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled, river.EventKindJobSnoozed)
	j.fairDone = make(chan struct{})
	go j.fair.wakeLoop(fairEvents, j.fairDone)
	return nil
}

// Stop stops fetching jobs, waits up to Config.StopTimeout (or ctx) for
// running jobs to finish, then cancels their contexts and waits for them
// to return; it then closes the client's pool. Jobs whose contexts were
// cancelled are retried by the next worker (an interrupted job does not
// use up an attempt). Stop on a client that never started only closes it.
func (j *Jobs) Stop(ctx context.Context) error {
	j.mu.Lock()
	started := j.started
	j.stopped = true
	j.mu.Unlock()
	if !started {
		j.Close()
		return nil
	}
	var err error
	if j.workers != nil {
		if j.orphanStop != nil {
			close(j.orphanStop)
			<-j.orphanDone
			j.orphanStop = nil
		}
		soft, cancel := context.WithTimeout(ctx, j.cfg.StopTimeout)
		err = j.client.Stop(soft)
		cancel()
		if err != nil {
			j.logger.WarnContext(ctx, "jobs: running jobs did not finish in time; cancelling them", "timeout", j.cfg.StopTimeout)
			hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			err = j.client.StopAndCancel(hard)
			cancel()
		}
		j.unsub()
		j.unsubFair()
		<-j.fairDone
		if j.live != nil {
			j.rescueMu.Lock()
			j.live.release()
			j.rescueMu.Unlock()
		}
	}
	j.closeEvents()
	j.Close()
	if err != nil {
		return fmt.Errorf("jobs: stopping: %w", err)
	}
	return nil
}

// Running reports whether the client was started and not stopped yet.
func (j *Jobs) Running() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.started && !j.stopped
}

// Close closes the client's pool without waiting for anything; use Stop
// on a started client.
func (j *Jobs) Close() {
	if j.live != nil {
		j.rescueMu.Lock()
		j.live.release()
		j.rescueMu.Unlock()
	}
	if j.closeDB != nil {
		j.closeDB()
		j.closeDB = nil
	}
}

// ClientID is the River client ID of this process's client: the name
// River records in a job's attempted_by and the name of its liveness lock.
func (j *Jobs) ClientID() string { return j.id }
