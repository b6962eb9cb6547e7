package postgres

import (
	"io/fs"
	"strconv"
	"strings"
	"testing"
)

// The migrations are numbered 1, 2, 3… once each: two branches that both took the next number
// would otherwise merge into a history where one file is never applied.
func TestMigrationsNumberedOnce(t *testing.T) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil || n != i+1 {
			t.Errorf("%s: want number %d (%v)", base, i+1, err)
		}
	}
}
