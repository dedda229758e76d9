-- Indexes for the admin listings, which page by keyset (see src/lib/cursor.ts): each listing
-- reads "the next `limit` rows after this sort key", which an index on (institution, sort
-- key) answers by a short range scan, whatever the depth of the page. Listings whose sort key
-- an existing unique index already serves are not repeated here: institutions (slug),
-- students (lower(email)), programs and units (lower(code)), campuses (lower(name)).

-- Cohorts, oldest first: (created_at, id).
CREATE INDEX cohorts_listing_idx ON cohorts (institution_id, created_at, id);

-- Audience tags by kind then label; the id breaks ties between equal labels.
CREATE INDEX audience_tags_listing_idx ON audience_tags (institution_id, kind, lower(label), id);

-- Terms by start date then code (the code is unique per institution).
CREATE INDEX terms_listing_idx ON terms (institution_id, start_date, lower(code));

-- Runs and help requests, newest first: (started_at, id) and (created_at, id) both descending.
-- These replace indexes that mixed directions (time descending, id ascending), which a row
-- comparison cannot use; a B-tree is read backwards as cheaply as forwards.
CREATE INDEX sis_runs_listing_idx ON sis_runs (institution_id, started_at, id);
DROP INDEX sis_runs_institution_idx;
CREATE INDEX help_requests_listing_idx ON help_requests (institution_id, created_at, id);
DROP INDEX help_requests_institution_idx;

-- Full syncs, newest first.
CREATE INDEX full_syncs_listing_idx ON full_syncs (institution_id, started_at, id);

-- Webhook endpoints oldest first, an endpoint's deliveries newest first: each gains its id as
-- tie-breaker (the indexes they replace stopped at the time). Attempts page by their bigint
-- id, which webhook_attempts_endpoint_idx (endpoint_id, id) serves already.
CREATE INDEX webhook_endpoints_listing_idx ON webhook_endpoints (institution_id, created_at, id);
DROP INDEX webhook_endpoints_institution_idx;
CREATE INDEX webhook_deliveries_listing_idx ON webhook_deliveries (endpoint_id, created_at, id);
DROP INDEX webhook_deliveries_endpoint_idx;

-- The students listing's search `q`: a case-insensitive prefix of the email, the external id,
-- the full name ("first last") or the last name. text_pattern_ops makes `lower(x) LIKE 'ada%'`
-- a range scan whatever the database's collation (pg_trgm would allow infix search, but the
-- embedded database does not ship it, and one SQL dialect serves both).
CREATE INDEX students_email_prefix_idx ON students (institution_id, lower(email) text_pattern_ops);
CREATE INDEX students_ext_prefix_idx ON students (institution_id, lower(student_id_ext) text_pattern_ops);
CREATE INDEX students_name_prefix_idx ON students
  (institution_id, lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '')) text_pattern_ops);
CREATE INDEX students_last_name_prefix_idx ON students (institution_id, lower(last_name) text_pattern_ops);
