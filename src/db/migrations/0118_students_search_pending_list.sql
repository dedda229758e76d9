-- The students' trigram index keeps a 1 MB pending list on PostgreSQL; the embedded database
-- keeps 0110's 64 kB. A roster page's entries are merged into the index each time the list passes
-- the limit: at 64 kB in dozens of small merges, each rewriting the posting lists it touches, at
-- 1 MB in a few (the index's WAL for a 5000-row page into an empty table of the same shape:
-- 12.4 MB at 64 kB, 6.9 MB at 1 MB; docs/performance.md, "The trigram index's pending list"). A
-- search reads the unmerged list whole besides the index: on PostgreSQL autovacuum merges it soon
-- after a page, and without autovacuum the insert that takes it past the limit does, so a search
-- reads at most 1 MB of it.
--
-- The embedded database runs PostgreSQL as a single-user ("standalone") backend, which starts no
-- autovacuum, yet reports autovacuum = on (the setting's default, never acted on): the setting
-- cannot tell the two apart, the backend's type does. Nor is the setting read on PostgreSQL: it
-- can be changed at any reload, and a server without autovacuum still bounds the list at 1 MB.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_stat_activity
    WHERE pid = pg_backend_pid() AND backend_type = 'standalone backend'
  ) THEN
    ALTER INDEX students_search_trgm_idx SET (gin_pending_list_limit = 1024);
  END IF;
END
$$;
