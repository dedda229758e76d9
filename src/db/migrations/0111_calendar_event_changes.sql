-- A calendar fetch's writes, staged before they are applied (src/domain/calendar/store.ts). The
-- embedded database is one session: a feed's store of tens of thousands of occurrences in one
-- transaction held it, and every request waited, for the whole store. Now the diff's batches are
-- written here, each in a statement of its own, and applied to calendar_events in one short
-- transaction with the fetch's record: a reader sees the old occurrences or the new ones, never
-- half a feed, and a fetch that fails before the apply leaves the stored ones as they were.
-- Rows are keyed by the claim's lease token, so two fetches of one feed (a lease that expired
-- while its fetch went on) never mix; the apply removes every staged row of its feed, a failed
-- fetch its own, and a feed's next successful fetch whatever a process that died left behind.
CREATE TABLE calendar_event_changes (
  lease_token uuid NOT NULL,
  feed_id uuid NOT NULL REFERENCES calendar_feeds (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('delete', 'update', 'insert')),
  -- The stored occurrence a delete or an update is of; null for an insert.
  event_id bigint,
  uid text,
  recurrence_id text,
  starts_at timestamptz,
  ends_at timestamptz,
  all_day boolean,
  summary text,
  location text,
  description text,
  status text,
  content_hash text
);
-- The apply reads a fetch's rows of one kind; the clean-up removes a feed's or a fetch's rows.
CREATE INDEX calendar_event_changes_lease_idx ON calendar_event_changes (lease_token, kind);
CREATE INDEX calendar_event_changes_feed_idx ON calendar_event_changes (feed_id);
