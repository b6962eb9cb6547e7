-- A sale's entry is kept as its leaf hash, no longer as its bytes: see
-- 0043_journal_sale_leaves.sqlite.sql. A row holds its entry's bytes or, a sale's, its leaf.
ALTER TABLE journal ALTER COLUMN entry DROP NOT NULL;
ALTER TABLE journal ADD COLUMN leaf bytea;
ALTER TABLE journal ADD CONSTRAINT journal_entry_or_leaf CHECK ((entry IS NULL) <> (leaf IS NULL));
ALTER TABLE journal ADD CONSTRAINT journal_leaf_of_game CHECK (leaf IS NULL OR (length(leaf) = 32 AND game IS NOT NULL));
