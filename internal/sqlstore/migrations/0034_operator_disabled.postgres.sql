-- An admin disables an operator: see the SQLite step.
ALTER TABLE operators ADD COLUMN disabled_at timestamptz;
