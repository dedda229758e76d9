-- Email notifications to staff and admins about help requests (docs/notifications.md): who is
-- told what (notification_settings) and the outbox of emails to send (notifications).

-- One row per person who is told anything. `crisis` is chosen by the institution's admins (the
-- people told of every new crisis request); `any_new` and `assigned` are the person's own choice
-- (every new request; a request assigned to them by someone else). A person with no row is told
-- nothing. Removing a person keeps the row, but the fan-out below skips removed people.
CREATE TABLE notification_settings (
  person_id uuid PRIMARY KEY REFERENCES people (id) ON DELETE CASCADE,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  crisis boolean NOT NULL DEFAULT false,
  any_new boolean NOT NULL DEFAULT false,
  assigned boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The fan-out reads an institution's people who want something; the settings pages read them all.
CREATE INDEX notification_settings_institution_idx ON notification_settings (institution_id);

-- The outbox: one email to one person about one help request. Written by the trigger below in the
-- transaction that records the request's event, so a request is never created or assigned without
-- its emails being queued (and an email is never queued for a change that rolled back).
-- Only ids are kept: the email is composed when it is sent, and says nothing of the request's
-- text (docs/notifications.md, "What an email says").
-- state: pending (due at next_attempt_at; a claimed row carries a lease until lease_until),
--   sent, failed (gave up: last_error says why), skipped (not sent: email is off, or the person
--   was removed or has no address).
CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  help_request_id uuid NOT NULL REFERENCES help_requests (id) ON DELETE CASCADE,
  event_id uuid REFERENCES events (id) ON DELETE SET NULL,
  reason text NOT NULL CHECK (reason IN ('crisis', 'new', 'assigned')),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed', 'skipped')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_token uuid,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
-- The worker's claim: due pending rows, oldest due first; small because finished rows leave it.
CREATE INDEX notifications_due_idx ON notifications (next_attempt_at) WHERE state = 'pending';
-- The console's recent notifications of an institution, newest first.
CREATE INDEX notifications_institution_idx ON notifications (institution_id, created_at DESC, id DESC);
-- Deleting a person or a request finds their rows.
CREATE INDEX notifications_person_idx ON notifications (person_id);
CREATE INDEX notifications_help_request_idx ON notifications (help_request_id);

-- Fan-out, set-based per statement (a help-sync batch records many events in one INSERT):
-- - help_request.created: the crisis recipients when the request is a crisis, and everyone who
--   asked for every new request; each person once (a crisis recipient who also asked for every new
--   request gets one email, about a crisis);
-- - help_request.updated that assigned the request to a person (the timeline entry of the same
--   version says so): that person, if they asked for it and did not assign it to themselves.
-- Only current staff and admins of the event's institution are told.
CREATE FUNCTION notification_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO notifications (institution_id, person_id, help_request_id, event_id, reason, next_attempt_at)
  SELECT e.institution_id, s.person_id, e.help_request_id, e.id,
    CASE WHEN e.payload -> 'data' ->> 'priority' = 'crisis' THEN 'crisis' ELSE 'new' END,
    LEAST(e.occurred_at, now())
  FROM new_events e
  JOIN notification_settings s ON s.institution_id = e.institution_id
    AND (s.any_new OR (s.crisis AND e.payload -> 'data' ->> 'priority' = 'crisis'))
  JOIN people p ON p.id = s.person_id AND p.institution_id = e.institution_id
    AND p.removed_at IS NULL AND p.roles && ARRAY['admin', 'staff']
  WHERE e.type = 'help_request.created' AND e.help_request_id IS NOT NULL
  UNION ALL
  SELECT e.institution_id, t.assigned_person_id, e.help_request_id, e.id, 'assigned', LEAST(e.occurred_at, now())
  FROM new_events e
  JOIN help_request_timeline t ON t.help_request_id = e.help_request_id
    AND t.version = (e.payload -> 'data' ->> 'version')::integer AND t.action = 'assign'
  JOIN notification_settings s ON s.person_id = t.assigned_person_id AND s.assigned
    AND s.institution_id = e.institution_id
  JOIN people p ON p.id = t.assigned_person_id AND p.institution_id = e.institution_id
    AND p.removed_at IS NULL AND p.roles && ARRAY['admin', 'staff']
    AND p.name IS DISTINCT FROM t.actor
  WHERE e.type = 'help_request.updated' AND e.help_request_id IS NOT NULL
    AND e.payload -> 'data' ->> 'assigned_to_id' IS NOT NULL;
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_notification_fan_out AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION notification_fan_out();
