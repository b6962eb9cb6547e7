package sqlstore

import (
	"context"

	"starcolor/internal/lottery"
)

// The bytes each table and index holds on disk, for the growth measurements of
// docs/PERFORMANCE.md (starcolor-loadtest size).

// sizesSQL reads them: SQLite's dbstat virtual table, page by page; PostgreSQL's sizes of the
// relations of the store's schema, a table with its TOAST table and maps, an index alone.
var sizesSQL = map[Dialect]string{
	SQLite: `SELECT s.name, coalesce(m.tbl_name, s.name), CAST(sum(s.pgsize) AS BIGINT) FROM dbstat s LEFT JOIN sqlite_schema m ON m.name = s.name
		GROUP BY s.name ORDER BY 3 DESC`,
	PostgreSQL: `SELECT c.relname, coalesce(t.relname, c.relname),
		  CASE WHEN c.relkind = 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END
		FROM pg_class c LEFT JOIN pg_index i ON i.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = i.indrelid
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'i')
		ORDER BY 3 DESC`,
}

// TableSizes are the bytes on disk of each table and index, largest first.
func (s *DB) TableSizes(ctx context.Context) ([]lottery.TableSize, error) {
	var out []lottery.TableSize
	err := each(s.read.Query(ctx, sizesSQL[s.d]))(func(r Rows) error {
		var t lottery.TableSize
		err := r.Scan(&t.Name, &t.Table, &t.Bytes)
		out = append(out, t)
		return err
	})
	return out, s.fault(err)
}
