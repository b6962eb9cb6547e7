-- SQLite only: PostgreSQL has this from 0001_schema.postgres.sql, which makes it at once.
--
-- Expired sessions are found through their times, not by reading every session: the sweep that
-- deletes them (once a minute, game.Service.ForgetExpiredSessions) goes through the writer, and a
-- read of the whole table held it, and every sale, about 20 ms per 100,000 sessions. A session's
-- times change at most once a minute (its activity), so the indexes cost little.
CREATE INDEX sessions_by_last_seen ON sessions(last_seen);
CREATE INDEX sessions_by_created ON sessions(created_at);
