-- Each block gets a number, and a game names its block by it (issue 24): a bigint where the
-- emission's id and the block's index were, in each game and in the unique index of the units
-- sold. 0042_block_numbers.sqlite.sql says the same of SQLite.
--
-- The watermark's update trigger of `ledger check` names the columns that go: it goes too (a
-- change of the schema makes the next check a full one, which writes it again). A game whose
-- block does not exist fails the step on NOT NULL, with nothing changed.
DROP TRIGGER IF EXISTS ledger_games_update ON games;

ALTER TABLE blocks ADD COLUMN number bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE blocks ADD CONSTRAINT blocks_number_key UNIQUE (number);
DROP TRIGGER blocks_commitment_immutable ON blocks;
CREATE TRIGGER blocks_commitment_immutable BEFORE UPDATE OF number, emission_id, block, units, root OR DELETE ON blocks
	FOR EACH ROW EXECUTE FUNCTION refuse('a block commitment is immutable');

ALTER TABLE games ADD COLUMN block_number bigint;
UPDATE games g SET block_number = b.number FROM blocks b WHERE b.emission_id = g.emission_id AND b.block = g.block;
ALTER TABLE games ALTER COLUMN block_number SET NOT NULL;
ALTER TABLE games ADD CONSTRAINT games_block_number_unit_key UNIQUE (block_number, unit); -- a unit is sold at most once
ALTER TABLE games DROP COLUMN emission_id, DROP COLUMN block;
