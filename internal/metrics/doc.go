// Package metrics is Geopub's Prometheus instrumentation: one registry per
// process (never the global one) holding
//
//   - geopub_http_requests_total and geopub_http_request_duration_seconds,
//     by route (chi's route pattern, such as /services/api/{version}/layers/{id}/,
//     never the raw path, so the number of series stays bounded), method
//     and status;
//   - geopub_jobs_total (state changes) and geopub_job_run_duration_seconds
//     (attempts that ended), by job kind and state, for the jobs this
//     process works;
//   - geopub_job_queue_jobs, the jobs each queue holds in each state
//     across every process sharing the database, counted at scrape time;
//   - geopub_query_index_bytes and geopub_query_index_budget_bytes, the
//     memory the point-query indexes hold and may hold;
//   - geopub_db_pool_* by pool (store: the request pool; jobs: the job
//     system's own pool): connections open, in use, idle and allowed,
//     and the waits for a connection;
//   - the Go runtime's and the process's standard collectors (go_*,
//     process_*).
//
// Handler serves the registry in the Prometheus text format.
package metrics
