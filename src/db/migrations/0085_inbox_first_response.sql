-- When a help request was first acknowledged (docs/console.md, "Inbox"): assigned, replied to
-- (a timeline entry of kind 'reply') or moved out of New, whichever came first. The inbox's time
-- waiting and first-response targets read it, and a crisis request with none escalates
-- (docs/notifications.md, "Escalation"). Kept by triggers, so it holds whatever code path writes:
-- the console, the admin API, the help-desk sync, or a future one.
ALTER TABLE help_requests ADD COLUMN first_response_at timestamptz;

-- Backfill, set-based: the first timeline entry that acknowledged the request (a reply, an
-- assignment, a status other than New), else, for a request acknowledged now without such an
-- entry (a legacy assignee name), when it was last changed.
UPDATE help_requests h SET first_response_at = coalesce(t.first_at, h.updated_at)
FROM (
  SELECT h2.id,
    (SELECT min(t.created_at) FROM help_request_timeline t
     WHERE t.help_request_id = h2.id
       AND (t.kind = 'reply' OR t.action = 'assign' OR (t.to_status IS NOT NULL AND t.to_status <> 'new'))
    ) AS first_at
  FROM help_requests h2
) t
WHERE t.id = h.id AND (
  t.first_at IS NOT NULL OR h.status <> 'new' OR h.assigned_person_id IS NOT NULL OR h.assigned_to IS NOT NULL
);

-- A change that assigns the request or moves it out of New stamps it with the change's own time
-- (updated_at, written by the service's clock), once.
CREATE FUNCTION help_requests_first_response() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.first_response_at := NEW.updated_at;
  RETURN NEW;
END;
$$;

CREATE TRIGGER help_requests_first_response BEFORE INSERT OR UPDATE ON help_requests
  FOR EACH ROW
  WHEN (NEW.first_response_at IS NULL AND (
    NEW.status <> 'new' OR NEW.assigned_person_id IS NOT NULL OR NEW.assigned_to IS NOT NULL))
  EXECUTE FUNCTION help_requests_first_response();

-- A reply to the student (a timeline entry of kind 'reply') stamps the request with the reply's
-- time, once. The WHEN clause keeps every other timeline entry free of any cost.
CREATE FUNCTION help_request_timeline_first_reply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE help_requests SET first_response_at = NEW.created_at
  WHERE id = NEW.help_request_id AND first_response_at IS NULL;
  RETURN NULL;
END;
$$;

CREATE TRIGGER help_request_timeline_first_reply AFTER INSERT ON help_request_timeline
  FOR EACH ROW WHEN (NEW.kind = 'reply')
  EXECUTE FUNCTION help_request_timeline_first_reply();

-- Crisis requests nobody has acknowledged: the escalation worker's scan and the console's banner
-- read this partial index, which holds only them (a few rows however many requests there are).
CREATE INDEX help_requests_unacknowledged_crisis_idx ON help_requests (institution_id, created_at)
  WHERE priority = 'crisis' AND first_response_at IS NULL;
