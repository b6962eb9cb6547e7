package sqlstore

import (
	"strings"
	"testing"
	"testing/fstest"
)

// The history is numbered 1, 2, 3… once each, and both dialects read one list from it: the same
// steps, under the same names, each with a file for at least one of them.
func TestHistoryNumberedOnce(t *testing.T) {
	lite, err := SQLite.Steps(History)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := PostgreSQL.Steps(History)
	if err != nil {
		t.Fatal(err)
	}
	if len(lite) != len(pg) {
		t.Fatalf("%d steps on SQLite, %d on PostgreSQL", len(lite), len(pg))
	}
	for i := range lite {
		if lite[i].Version != i+1 || pg[i].Version != i+1 || lite[i].Name != pg[i].Name {
			t.Errorf("step %d: %+v on SQLite, %+v on PostgreSQL", i+1, lite[i], pg[i])
		}
		if lite[i].File == "" && pg[i].File == "" {
			t.Errorf("step %s has no file", lite[i].Name)
		}
	}
}

// Every row a build before the one history may have recorded is renumbered to a step of the
// history that the dialect runs.
func TestRenumberedAreSteps(t *testing.T) {
	for _, d := range []Dialect{SQLite, PostgreSQL} {
		steps, err := d.Steps(History)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range Renumbered[d] {
			if r.Version != i+1 || !strings.HasSuffix(r.File, ".sql") {
				t.Errorf("%s: row %d is %+v", d, i+1, r)
			}
			found := false
			for _, s := range steps {
				found = found || (s.Name == r.Step && s.File != "")
			}
			if !found {
				t.Errorf("%s: %s renumbered to %s, which it does not run", d, r.File, r.Step)
			}
		}
	}
}

// A file the history cannot name a step from is refused, and so are two files of one number
// but for one step's two dialects.
func TestStepsRefused(t *testing.T) {
	for _, c := range []struct {
		files []string
		err   string
	}{
		{[]string{"0001_a.sql", "0002_b.sqlite.sql", "0002_b.postgres.sql"}, ""},
		{[]string{"0001_a.sql", "0001_b.sql"}, "migrations 0001_a.sql and 0001_b.sql have one number"},
		{[]string{"0001_a.sql", "0001_a.sqlite.sql"}, "have one number"},
		{[]string{"0001_a.postgres.sql", "0001_b.sqlite.sql"}, "have one number"},
		{[]string{"0001_a.mysql.sql"}, "migration 0001_a.mysql.sql: not NNNN_name.sql"},
		{[]string{"1_a.sql"}, "migration 1_a.sql: not NNNN_name.sql"},
	} {
		fsys := fstest.MapFS{}
		for _, f := range c.files {
			fsys[f] = &fstest.MapFile{Data: []byte("SELECT 1")}
		}
		_, err := SQLite.Steps(fsys)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v: %v, want %q", c.files, err, c.err)
		}
	}
}

// A step with one dialect's file is recorded on the other without running anything.
func TestStepsOfOneDialect(t *testing.T) {
	fsys := fstest.MapFS{"0001_a.sql": {}, "0002_b.sqlite.sql": {}, "0003_c.sqlite.sql": {}, "0003_c.postgres.sql": {}}
	pg, err := PostgreSQL.Steps(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{{1, "0001_a", "0001_a.sql"}, {2, "0002_b", ""}, {3, "0003_c", "0003_c.postgres.sql"}}
	if len(pg) != len(want) {
		t.Fatalf("%+v, want %+v", pg, want)
	}
	for i := range want {
		if pg[i] != want[i] {
			t.Errorf("%+v, want %+v", pg[i], want[i])
		}
	}
}
