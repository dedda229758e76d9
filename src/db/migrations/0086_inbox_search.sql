-- The inbox's search (docs/console.md, "Inbox"): a part of the student's name, email or SIS id,
-- or of the request's text, anywhere in it ("ana" finds "Mariana"). Trigram indexes (pg_trgm,
-- shipped with PostgreSQL and with the embedded database as an extension) serve `LIKE '%term%'`
-- on both databases, so no search server is needed; a term of three characters or more has
-- trigrams to look up.
--
-- The extension is created in `public` when it is missing, never in a schema that may be dropped
-- (tests give each run a schema of its own). Where an installation has it already, in whatever
-- schema, the indexes name its operator class there.
DO $$
DECLARE
  ext_schema text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION pg_trgm WITH SCHEMA public;
    EXCEPTION WHEN unique_violation OR duplicate_object THEN
      NULL; -- created meanwhile by another migration run on the same database
    END;
  END IF;
  SELECT n.nspname INTO ext_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
  WHERE e.extname = 'pg_trgm';
  -- The request's own text.
  EXECUTE format(
    'CREATE INDEX help_requests_summary_trgm_idx ON help_requests USING gin (lower(summary) %I.gin_trgm_ops) '
    'WHERE summary IS NOT NULL', ext_schema);
  -- The student's name, email and SIS id as one string: the expression must stay word for word
  -- the one of src/domain/helpdesk/search.ts (STUDENT_TEXT) for the planner to use the index.
  EXECUTE format(
    'CREATE INDEX students_search_trgm_idx ON students USING gin ('
    'lower(coalesce(first_name, '''') || '' '' || coalesce(last_name, '''') || '' '' || email || '' '' || student_id_ext) '
    '%I.gin_trgm_ops)', ext_schema);
END;
$$;
