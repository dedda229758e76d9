-- The conversation between staff and a student (docs/console.md, docs/student-app.md): replies to
-- the student and the student's answers join the append-only timeline, students are told by email,
-- and admins keep saved replies.

-- Timeline kinds: `reply` (staff, or the help desk through help-sync, to the student: the student
-- reads it) and `student_message` (the student's answer). Both keep their words in `note`, like a
-- note; only `note` entries stay staff-only.
ALTER TABLE help_request_timeline DROP CONSTRAINT help_request_timeline_kind_check;
ALTER TABLE help_request_timeline ADD CONSTRAINT help_request_timeline_kind_check
  CHECK (kind IN ('note', 'audit', 'reply', 'student_message'));

-- Counting a request's recent replies or answers (the rate limits) reads the request's own range
-- of help_request_timeline_request_idx (help_request_id, seq): a request's timeline is tens of
-- entries, so no index of its own is worth its cost on every append.

-- What a student has seen of each of their requests: the last timeline entry shown to them. An
-- entry after it, written by someone else, marks the request unread on the student's pages (the
-- student without email, or with email off, learns of a reply at the next visit).
CREATE TABLE help_request_student_reads (
  help_request_id uuid PRIMARY KEY REFERENCES help_requests (id) ON DELETE CASCADE,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  seen_seq bigint NOT NULL,
  seen_at timestamptz NOT NULL
);

-- Saved replies: named texts an institution's admins keep for staff to insert into a reply and
-- edit before sending (for example the out-of-hours crisis wording).
CREATE TABLE saved_replies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 5000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One name once per institution (case-insensitively), and the list read by name.
CREATE UNIQUE INDEX saved_replies_name_key ON saved_replies (institution_id, lower(name));

-- Whether the institution's help desk may post public replies through help-sync (the `reply`
-- action). Off until an admin turns it on: a reply reaches the student.
ALTER TABLE institutions ADD COLUMN help_sync_replies boolean NOT NULL DEFAULT false;

-- The email outbox now also holds emails to students (student_id instead of person_id) and the
-- invitation of a new person (no help request). `rule` names what made the email, for its
-- "why you receive this" line; null on rows from before it existed (derived when sent).
ALTER TABLE notifications ALTER COLUMN person_id DROP NOT NULL;
ALTER TABLE notifications ALTER COLUMN help_request_id DROP NOT NULL;
ALTER TABLE notifications ADD COLUMN student_id uuid REFERENCES students (id) ON DELETE CASCADE;
ALTER TABLE notifications ADD COLUMN rule text
  CHECK (rule IN ('crisis_recipient', 'any_new', 'assigned_to_me', 'assignee', 'requester', 'invited'));
ALTER TABLE notifications ADD CONSTRAINT notifications_one_recipient CHECK (num_nonnulls(person_id, student_id) = 1);
ALTER TABLE notifications DROP CONSTRAINT notifications_reason_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_reason_check
  CHECK (reason IN ('crisis', 'new', 'assigned', 'reply', 'status', 'student_message', 'invited'));
-- Deleting a student finds their emails.
CREATE INDEX notifications_student_idx ON notifications (student_id) WHERE student_id IS NOT NULL;

-- Fan-out of the conversation, set-based per statement, in the transaction of the event:
-- - help_request.reply: the student of the request (reason reply);
-- - help_request.updated whose timeline entry of the same version changed the status (staff or
--   help desk): the student (reason status);
-- - help_request.student_message: the assignee when the request is assigned to a current staff
--   member or admin; otherwise the institution's people for that priority, as for a new request
--   (crisis recipients for a crisis request, and everyone who asked for every new request).
CREATE FUNCTION notification_conversation_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO notifications (institution_id, person_id, student_id, help_request_id, event_id, reason, rule,
    next_attempt_at)
  SELECT e.institution_id, NULL::uuid, h.student_id, e.help_request_id, e.id, 'reply', 'requester',
    LEAST(e.occurred_at, now())
  FROM new_events e JOIN help_requests h ON h.id = e.help_request_id
  WHERE e.type = 'help_request.reply' AND h.student_id IS NOT NULL
  UNION ALL
  SELECT e.institution_id, NULL::uuid, h.student_id, e.help_request_id, e.id, 'status', 'requester',
    LEAST(e.occurred_at, now())
  FROM new_events e JOIN help_requests h ON h.id = e.help_request_id
  WHERE e.type = 'help_request.updated' AND h.student_id IS NOT NULL
    AND EXISTS (SELECT 1 FROM help_request_timeline t
      WHERE t.help_request_id = e.help_request_id AND t.version = (e.payload -> 'data' ->> 'version')::integer
        AND t.kind = 'audit' AND t.action <> 'created' AND t.to_status IS NOT NULL
        AND t.from_status IS DISTINCT FROM t.to_status)
  UNION ALL
  SELECT e.institution_id, p.id, NULL::uuid, e.help_request_id, e.id, 'student_message', 'assignee',
    LEAST(e.occurred_at, now())
  FROM new_events e JOIN help_requests h ON h.id = e.help_request_id
  JOIN people p ON p.id = h.assigned_person_id AND p.institution_id = e.institution_id
    AND p.removed_at IS NULL AND p.roles && ARRAY['admin', 'staff']
  WHERE e.type = 'help_request.student_message'
  UNION ALL
  SELECT e.institution_id, s.person_id, NULL::uuid, e.help_request_id, e.id, 'student_message',
    CASE WHEN s.crisis AND h.priority = 'crisis' THEN 'crisis_recipient' ELSE 'any_new' END,
    LEAST(e.occurred_at, now())
  FROM new_events e JOIN help_requests h ON h.id = e.help_request_id
  JOIN notification_settings s ON s.institution_id = e.institution_id
    AND (s.any_new OR (s.crisis AND h.priority = 'crisis'))
  JOIN people p ON p.id = s.person_id AND p.institution_id = e.institution_id
    AND p.removed_at IS NULL AND p.roles && ARRAY['admin', 'staff']
  WHERE e.type = 'help_request.student_message'
    AND NOT EXISTS (SELECT 1 FROM people a WHERE a.id = h.assigned_person_id
      AND a.removed_at IS NULL AND a.roles && ARRAY['admin', 'staff']);
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_notification_conversation_fan_out AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION notification_conversation_fan_out();

-- Webhooks: an endpoint subscribed to every type (an empty list) keeps receiving the types it
-- received before; the types that carry a person's words (a reply, a student's answer) reach only
-- endpoints that list them (docs/versioning.md: a new type only once subscribed).
CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.type LIKE 'webhook.%' THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (institution_id, endpoint_id, event_id, next_attempt_at)
  SELECT NEW.institution_id, e.id, NEW.id, LEAST(NEW.occurred_at, now())
  FROM webhook_endpoints e
  WHERE e.institution_id = NEW.institution_id
    AND e.enabled
    AND (NEW.type = ANY (e.event_types)
      OR (cardinality(e.event_types) = 0
        AND NEW.type NOT IN ('help_request.reply', 'help_request.student_message')));
  RETURN NULL;
END;
$$;
