-- The inbox search's trigram indexes (migration 0086) keep a small pending list. A GIN index
-- gathers new entries in an unsorted pending list (fastupdate) that every search reads whole until
-- it is merged into the index, which only VACUUM, autovacuum or a list grown past
-- gin_pending_list_limit (4 MB by default) does. The embedded database has no autovacuum, so its
-- lists sat at up to 4 MB: measured at 100,000 requests and students, a search's index scans took
-- 61 and 45 ms with the lists left by the inserts and 0.03 and 23 ms once merged
-- (docs/console.md, "The inbox at 100,000 requests"). A 64 kB limit keeps inserts batched (a
-- roster push still adds a page of students to the list, merged once it fills) while a search
-- reads at most that much besides the index.
ALTER INDEX help_requests_summary_trgm_idx SET (gin_pending_list_limit = 64);
ALTER INDEX students_search_trgm_idx SET (gin_pending_list_limit = 64);
-- What is pending now is merged once.
SELECT gin_clean_pending_list('help_requests_summary_trgm_idx'::regclass);
SELECT gin_clean_pending_list('students_search_trgm_idx'::regclass);
