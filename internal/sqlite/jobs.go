package sqlite

import (
	"context"
	"sync"
)

// The back office's jobs and the sweeps' leases are rows (internal/sqlstore). Over SQLite one
// server sells from a file, so its locks are its own process's.

// locks serialises the WithLock sections of this process: one server sells from a file.
var locks sync.Map // path and name → *sync.Mutex

// WithLock runs fn while no other WithLock section of the same name runs on this store.
func (d *DB) WithLock(ctx context.Context, name string, fn func() error) error {
	m, _ := locks.LoadOrStore(d.Path+"\x00"+name, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	return fn()
}

// OneServer tells that one server at most sells from this store (serve holds a lock beside the
// file): what that server keeps in memory of it, such as its sessions, stays exact.
func (d *DB) OneServer() bool { return true }
