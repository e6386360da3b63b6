package graph

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/scan"
)

// The rule for deletes: a record is never deleted under a job still
// working on it. Its queued jobs are cancelled and its running jobs'
// contexts cancelled first (jobs.Cancel), so the work stops within
// seconds instead of running on, at full CPU or holding a download
// slot, for a record that no longer exists.

// stopImports cancels the import jobs of the versions still importing.
func (r *Resolver) stopImports(ctx context.Context, vs ...*ent.LayerVersion) error {
	for _, v := range vs {
		if v.ImportJobID != nil && v.Status == layerversion.StatusImporting {
			if _, err := r.Jobs.Cancel(ctx, *v.ImportJobID); err != nil {
				return err
			}
		}
	}
	return nil
}

// stopScans cancels the jobs of the scans still queued or scanning.
func (r *Resolver) stopScans(ctx context.Context, scs ...*ent.Scan) error {
	for _, sc := range scs {
		if sc.JobID != nil && (sc.Status == scan.StatusQueued || sc.Status == scan.StatusScanning) {
			if _, err := r.Jobs.Cancel(ctx, *sc.JobID); err != nil {
				return err
			}
		}
	}
	return nil
}
