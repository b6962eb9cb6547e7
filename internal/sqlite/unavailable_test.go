package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"starcolor/internal/fault"
)

// setMaxPages caps the writer's database at n pages (0: as it is now): SQLite then fails writes
// that need more as a full disk does (SQLITE_FULL).
func setMaxPages(t *testing.T, d *DB, n int) {
	t.Helper()
	err := d.update(context.Background(), func(t *tx) error {
		if n == 0 {
			if err := t.queryRow(`PRAGMA page_count`).Scan(&n); err != nil {
				return err
			}
		}
		_, err := t.w.conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA max_page_count = %d", n))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A full store fails writes as unavailable (503, try again later), not as an internal error:
// the other writes of the batch, the sales, and the probe of the health check alike; and once
// there is room again, it writes again by itself.
func TestFullStoreIsUnavailable(t *testing.T) {
	f := newSalesFixture(t)
	ctx := context.Background()
	p := f.player(t, "full", 100_000)
	if err := f.d.CheckWrite(ctx); err != nil {
		t.Fatalf("health probe on a store with room: %v", err)
	}
	setMaxPages(t, f.d, 0)
	big := strings.Repeat("x", 64<<10)
	_, err := f.d.CreatePlayer(ctx, "bulky", big, nil, f.now)
	if !fault.Is(err, fault.Unavailable) || fault.RetryAfter(err) <= 0 {
		t.Fatalf("a write on a full store: %v (code %s), want unavailable with a wait", err, fault.CodeOf(err))
	}
	for i := 0; ; i++ {
		if _, err = f.sell(p, fmt.Sprintf("full-%d", i)); err != nil || i == 2000 {
			break
		}
	}
	if !fault.Is(err, fault.Unavailable) {
		t.Fatalf("sales on a full store: %v (code %s), want unavailable", err, fault.CodeOf(err))
	}
	if err := f.d.CheckWrite(ctx); !fault.Is(err, fault.Unavailable) {
		t.Fatalf("health probe on a full store: %v", err)
	}
	setMaxPages(t, f.d, 1<<30)
	f.d.health.Memory, f.d.health.Every = time.Nanosecond, time.Nanosecond // the failures above are forgotten at once
	if err := f.d.CheckWrite(ctx); err != nil {
		t.Fatalf("health probe once there is room again: %v", err)
	}
	if _, err := f.sell(p, "after"); err != nil {
		t.Fatalf("a sale once there is room again: %v", err)
	}
}
