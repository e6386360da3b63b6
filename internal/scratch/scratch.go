// Package scratch is the temporary-file area of a data directory: every
// temporary file or folder Geopub makes (upload parts, scan and import
// work folders, downloads) lives in the folder of its own process under
// DATA/tmp, never in the system temp directory, and is removed when the
// request or job that made it ends, fails or is cancelled.
//
// A process that is killed cannot clean up, so each process holds an
// flock on a lock file beside its folder for as long as it lives (the
// operating system drops it the moment the process dies). Open sweeps the
// area first: the folders whose lock is free belong to dead processes and
// are removed; those of live processes are left alone.
package scratch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// lockSuffix names a process folder's lock file: FOLDER.lock.
const lockSuffix = ".lock"

// Area is one process's folder in a temporary-file area.
type Area struct {
	dir      string
	lock     *os.File
	lockPath string
}

// Open sweeps root (the area, DATA/tmp) of the folders of dead processes
// and makes this process's folder in it. Close the result on shutdown.
func Open(root string) (*Area, error) {
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, fmt.Errorf("scratch: %w", err)
	}
	if _, err := Sweep(root); err != nil {
		return nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := fmt.Sprintf("p%d-%s", os.Getpid(), hex.EncodeToString(b[:]))
	// The lock file is locked under a hidden name, which sweeps skip, and
	// only then renamed into place, so a sweep never finds it unlocked;
	// and it exists before the folder, so a sweep never finds a folder
	// without its lock.
	lockPath := filepath.Join(root, name+lockSuffix)
	lock, err := os.OpenFile(filepath.Join(root, "."+name+lockSuffix), os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o640)
	if err != nil {
		return nil, fmt.Errorf("scratch: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		os.Remove(lock.Name())
		return nil, fmt.Errorf("scratch: locking %s: %w", lock.Name(), err)
	}
	if err := os.Rename(lock.Name(), lockPath); err != nil {
		lock.Close()
		os.Remove(lock.Name())
		return nil, fmt.Errorf("scratch: %w", err)
	}
	dir := filepath.Join(root, name)
	if err := os.Mkdir(dir, 0o750); err != nil {
		lock.Close()
		os.Remove(lockPath)
		return nil, fmt.Errorf("scratch: %w", err)
	}
	return &Area{dir: dir, lock: lock, lockPath: lockPath}, nil
}

// Dir is this process's folder: put temporary files and folders here
// (os.CreateTemp(a.Dir(), ...), os.MkdirTemp(a.Dir(), ...)) and remove
// them when done.
func (a *Area) Dir() string { return a.dir }

// Close removes this process's folder and everything left in it, and
// releases its lock.
func (a *Area) Close() error {
	if a == nil || a.lock == nil {
		return nil
	}
	err := os.RemoveAll(a.dir)
	if rerr := os.Remove(a.lockPath); err == nil {
		err = rerr
	}
	a.lock.Close()
	a.lock = nil
	return err
}

// Sweep removes from root the folders of processes that no longer hold
// their lock, and returns their names. Folders of live processes stay.
func Sweep(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("scratch: %w", err)
	}
	locks := map[string]bool{}
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), lockSuffix); ok && !e.IsDir() {
			locks[n] = true
		}
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // a lock file being made
		}
		if strings.HasSuffix(name, lockSuffix) && !e.IsDir() {
			if n := strings.TrimSuffix(name, lockSuffix); dead(filepath.Join(root, name)) {
				if err := os.RemoveAll(filepath.Join(root, n)); err != nil {
					return removed, fmt.Errorf("scratch: %w", err)
				}
				os.Remove(filepath.Join(root, name))
				removed = append(removed, n)
			}
			continue
		}
		if !locks[name] {
			// A folder whose lock file is gone: its process removed the
			// lock while dying, or something else left it here.
			if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
				return removed, fmt.Errorf("scratch: %w", err)
			}
			removed = append(removed, name)
		}
	}
	return removed, nil
}

// dead reports whether the lock file at path is held by no process. The
// probe's own lock is dropped when its descriptor closes.
func dead(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
