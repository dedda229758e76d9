-- Privacy (docs/privacy.md): erasure of a student, retention by time, and the record of who
-- looked at a student's data. Every table and column holding personal data is named in
-- src/domain/privacy/data-map.ts; a test fails when a column is not.

-- Each institution's retention periods, in days. A NULL keeps the documented default
-- (src/domain/privacy/retention-periods.ts); the service checks the floor and ceiling.
CREATE TABLE retention_settings (
  institution_id uuid PRIMARY KEY REFERENCES institutions (id) ON DELETE CASCADE,
  resolved_requests_days integer CHECK (resolved_requests_days > 0),
  departed_students_days integer CHECK (departed_students_days > 0),
  run_errors_days integer CHECK (run_errors_days > 0),
  webhook_bodies_days integer CHECK (webhook_bodies_days > 0),
  notifications_days integer CHECK (notifications_days > 0),
  access_log_days integer CHECK (access_log_days > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per erased student, without the person: a SHA-256 of the institution and the
-- student's id (so repeating an erasure answers "already erased" instead of "not found"), who
-- erased them, why (an admin's request or retention) and how much went. Kept for the audit.
CREATE TABLE student_erasures (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  student_key text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('request', 'retention')),
  erased_by text NOT NULL,
  removed jsonb NOT NULL DEFAULT '{}',
  erased_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX student_erasures_key ON student_erasures (institution_id, student_key);
CREATE INDEX student_erasures_listing_idx ON student_erasures (institution_id, erased_at DESC);

-- A help request whose words were erased (its student erased, or past its retention): it stays,
-- with its status, priority, category and times, so statistics still count it.
ALTER TABLE help_requests ADD COLUMN erased_at timestamptz;
-- Retention finds an institution's resolved requests past their time, not yet erased, oldest
-- first, by a range of this index (it holds only requests retention has still to erase).
CREATE INDEX help_requests_resolved_idx ON help_requests (institution_id, resolved_at)
  WHERE erased_at IS NULL AND resolved_at IS NOT NULL;

-- Who looked: each opening of a help request, a student's page or an export (who, when, what;
-- never the page's content). One INSERT per page view. The student a view was about is kept by
-- id only and cleared by an erasure; the entry itself stays (FERPA's record of disclosures).
CREATE TABLE access_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  actor_kind text NOT NULL CHECK (actor_kind IN ('operator', 'person')),
  actor_id uuid,
  actor text NOT NULL,
  what text NOT NULL CHECK (what IN ('help_request', 'student', 'export')),
  help_request_id uuid,
  student_id uuid,
  surface text NOT NULL CHECK (surface IN ('console', 'api')),
  at timestamptz NOT NULL
);
-- The audit page (newest first per institution), and the retention sweep (an institution's
-- entries before a time). One index: every page view writes to this table.
CREATE INDEX access_log_institution_idx ON access_log (institution_id, at DESC, id DESC);
-- "Seen by" on a request's page, and an erasure's clearing of a student's entries.
CREATE INDEX access_log_request_idx ON access_log (help_request_id, at DESC) WHERE help_request_id IS NOT NULL;
CREATE INDEX access_log_student_idx ON access_log (student_id) WHERE student_id IS NOT NULL;

-- What each retention run removed, per institution: the health page shows the latest.
CREATE TABLE retention_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  removed jsonb NOT NULL
);
CREATE INDEX retention_runs_institution_idx ON retention_runs (institution_id, finished_at DESC);

-- The one exception to the append-only timeline and admin audit: an erasure. Inside a transaction
-- that set `ssp.erasure` to 'on' (set_config(..., true): transaction-local, so it cannot leak to
-- another transaction through a pooled connection), an UPDATE may only clear a timeline entry's
-- note and replace its actor, or replace an audit line's target; every other column must stay as
-- it was (compared as JSON, so a column added later is protected too). DELETE and TRUNCATE stay
-- refused, always.
CREATE OR REPLACE FUNCTION help_request_timeline_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$
BEGIN
  IF TG_OP = 'UPDATE' AND current_setting('ssp.erasure', true) = 'on'
     AND NEW.note IS NULL
     AND to_jsonb(NEW) - 'note' - 'actor' = to_jsonb(OLD) - 'note' - 'actor' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'help_request_timeline is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'object_not_in_prerequisite_state';
END
$$;

CREATE OR REPLACE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND current_setting('ssp.erasure', true) = 'on'
     AND to_jsonb(NEW) - 'target' = to_jsonb(OLD) - 'target' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'admin_audit is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;

-- An erasure finds the events of a student's requests by this index (the log is the largest table).
CREATE INDEX events_help_request_idx ON events (help_request_id) WHERE help_request_id IS NOT NULL;

-- Erasure inside JSON whose shape varies (push history's row errors, warnings and dry-run
-- details): every string containing one of `needles` (lower case) becomes "[erased]" and every
-- object key containing one is dropped with its value; numbers, counts and the shape stay.
CREATE FUNCTION privacy_scrub(value jsonb, needles text[]) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE jsonb_typeof(value)
    WHEN 'string' THEN
      IF EXISTS (SELECT 1 FROM unnest(needles) n WHERE strpos(lower(value #>> '{}'), n) > 0) THEN
        RETURN to_jsonb('[erased]'::text);
      END IF;
      RETURN value;
    WHEN 'array' THEN
      RETURN coalesce((SELECT jsonb_agg(privacy_scrub(e, needles) ORDER BY n)
        FROM jsonb_array_elements(value) WITH ORDINALITY AS a(e, n)), '[]'::jsonb);
    WHEN 'object' THEN
      RETURN coalesce((SELECT jsonb_object_agg(k, privacy_scrub(v, needles))
        FROM jsonb_each(value) AS o(k, v)
        WHERE NOT EXISTS (SELECT 1 FROM unnest(needles) n WHERE strpos(lower(k), n) > 0)), '{}'::jsonb);
    ELSE
      RETURN value;
  END CASE;
END;
$$;
