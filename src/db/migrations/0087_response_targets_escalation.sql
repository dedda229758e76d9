-- First-response targets and crisis escalation (docs/console.md, docs/notifications.md).

-- An institution's targets for a first response, per priority, and its escalation window, all in
-- minutes, set by its admins. An institution without a row has the defaults written here (the
-- service reads them through coalesce, so the defaults live in one place: these columns').
CREATE TABLE inbox_settings (
  institution_id uuid PRIMARY KEY REFERENCES institutions (id) ON DELETE CASCADE,
  target_crisis_minutes integer NOT NULL DEFAULT 15 CHECK (target_crisis_minutes BETWEEN 1 AND 43200),
  target_high_minutes integer NOT NULL DEFAULT 240 CHECK (target_high_minutes BETWEEN 1 AND 43200),
  target_normal_minutes integer NOT NULL DEFAULT 2880 CHECK (target_normal_minutes BETWEEN 1 AND 43200),
  target_low_minutes integer NOT NULL DEFAULT 7200 CHECK (target_low_minutes BETWEEN 1 AND 43200),
  escalation_minutes integer NOT NULL DEFAULT 15 CHECK (escalation_minutes BETWEEN 1 AND 1440),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The escalation list: people the institution's admins chose to be told when a crisis request
-- waits unacknowledged past the window. When nobody is chosen, every current admin is told.
ALTER TABLE notification_settings ADD COLUMN escalation boolean NOT NULL DEFAULT false;

-- One row per escalated request: its primary key is what makes an escalation happen once, however
-- many workers scan at the same time (the insert that loses the race inserts nothing). Written in
-- the transaction that writes the request's timeline entry and the emails' outbox rows.
CREATE TABLE help_request_escalations (
  help_request_id uuid PRIMARY KEY REFERENCES help_requests (id) ON DELETE CASCADE,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  -- The window that applied, and whether the email went to every admin for want of a list.
  window_minutes integer NOT NULL,
  to_admins boolean NOT NULL,
  recipients integer NOT NULL,
  escalated_at timestamptz NOT NULL
);
CREATE INDEX help_request_escalations_institution_idx
  ON help_request_escalations (institution_id, escalated_at DESC);

-- Escalation emails travel through the notifications outbox with their own reason. The reasons
-- allowed so far are read from the constraint and 'escalation' added to them, so that reasons
-- another migration added are kept whatever order the two ran in.
DO $$
DECLARE
  def text;
  reasons text[];
BEGIN
  SELECT pg_get_constraintdef(c.oid) INTO def FROM pg_constraint c
  WHERE c.conrelid = 'notifications'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%reason%';
  SELECT array_agg(DISTINCT m[1]) INTO reasons FROM regexp_matches(coalesce(def, ''), '''([a-z_]+)''', 'g') AS m;
  reasons := array(SELECT DISTINCT unnest(coalesce(reasons, '{}') || ARRAY['crisis', 'new', 'assigned', 'escalation']));
  EXECUTE 'ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_reason_check';
  EXECUTE format('ALTER TABLE notifications ADD CONSTRAINT notifications_reason_check CHECK (reason = ANY (%L::text[]))',
    reasons);
END;
$$;
