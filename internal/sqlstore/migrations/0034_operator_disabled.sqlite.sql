-- An admin disables an operator (docs/spec/OPERATOR.md, issue 23): a disabled operator cannot log
-- in, their sessions are ended, and their tokens are refused. NULL for an operator who may work.
ALTER TABLE operators ADD COLUMN disabled_at TEXT;
