-- Help requests, their append-only timeline (staff-visible notes and audit entries), and the
-- per-institution help-desk sync secrets. Every row is keyed by institution_id.

CREATE TABLE help_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  -- Null only if the student record is deleted later: the request and its audit history stay.
  student_id uuid REFERENCES students (id) ON DELETE SET NULL,
  status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'ack', 'in_progress', 'resolved')),
  priority text NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high', 'crisis')),
  summary text CHECK (length(summary) <= 2000),
  -- Name of the staff member the request is assigned to; null when unassigned.
  assigned_to text CHECK (length(assigned_to) BETWEEN 1 AND 200),
  external_ref text CHECK (length(external_ref) <= 200),
  resolved_at timestamptz,
  -- Incremented by every change, so event consumers can drop stale events.
  version integer NOT NULL DEFAULT 1,
  -- When a staff member last changed the status (console precedence over external views).
  staff_status_changed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'resolved') = (resolved_at IS NOT NULL))
);
CREATE INDEX help_requests_institution_idx ON help_requests (institution_id, created_at DESC, id);
CREATE INDEX help_requests_status_idx ON help_requests (institution_id, status, priority);
CREATE INDEX help_requests_student_idx ON help_requests (student_id);

-- The timeline: staff-visible notes (kind 'note') and audit entries (kind 'audit'), each
-- attributed to an actor name and an origin. Append-only: see the triggers below.
CREATE TABLE help_request_timeline (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  institution_id uuid NOT NULL REFERENCES institutions (id),
  help_request_id uuid NOT NULL REFERENCES help_requests (id),
  kind text NOT NULL CHECK (kind IN ('note', 'audit')),
  -- What happened: created, status, note, assign, unassign (staff); acknowledge, resolve,
  -- reopen, note, superseded (help-desk sync).
  action text NOT NULL,
  actor text,
  origin text NOT NULL CHECK (origin IN ('platform', 'integration')),
  note text,
  from_status text,
  to_status text,
  external_ref text,
  assigned_to text,
  -- The request's version after this entry (unchanged for entries that change nothing).
  version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX help_request_timeline_seq_key ON help_request_timeline (seq);
CREATE INDEX help_request_timeline_request_idx ON help_request_timeline (help_request_id, seq);

CREATE FUNCTION help_request_timeline_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$
BEGIN
  RAISE EXCEPTION 'help_request_timeline is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'object_not_in_prerequisite_state';
END
$$;

CREATE TRIGGER help_request_timeline_no_update BEFORE UPDATE OR DELETE ON help_request_timeline
  FOR EACH ROW EXECUTE FUNCTION help_request_timeline_append_only();
CREATE TRIGGER help_request_timeline_no_truncate BEFORE TRUNCATE ON help_request_timeline
  FOR EACH STATEMENT EXECUTE FUNCTION help_request_timeline_append_only();

-- Help-desk sync secrets: at most one active per institution; revoked rows are kept so that a
-- revoked secret is told apart from a wrong one and a never-issued institution from both.
CREATE TABLE help_sync_secrets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX help_sync_secrets_hash_key ON help_sync_secrets (secret_hash);
CREATE UNIQUE INDEX help_sync_secrets_one_active ON help_sync_secrets (institution_id) WHERE revoked_at IS NULL;
