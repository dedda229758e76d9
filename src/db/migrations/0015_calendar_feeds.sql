-- Calendar feeds: public .ics URLs an admin enters, fetched on a schedule by the worker (and on
-- demand), the log of every fetch, and the expanded occurrences of each feed's events.
-- Rules and limits: docs/calendar-feeds.md.

CREATE TABLE calendar_feeds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  name text CHECK (name IS NULL OR length(name) <= 200),
  refresh_minutes integer NOT NULL DEFAULT 60 CHECK (refresh_minutes BETWEEN 5 AND 10080),
  -- Empty: meant for every student of the institution; otherwise only students carrying one of
  -- these audience tags (program or campus). Not a foreign key: a tag removed later simply no
  -- longer matches anyone.
  audience_tag_ids uuid[] NOT NULL DEFAULT '{}',
  -- Validators of the last complete response, sent back as If-None-Match / If-Modified-Since.
  etag text,
  last_modified text,
  -- Due time of the next scheduled fetch. A claim moves it to the lease expiry and stamps
  -- lease_token, so a worker that dies mid-fetch lets the feed fall due again by itself.
  next_fetch_at timestamptz NOT NULL DEFAULT now(),
  lease_token uuid,
  -- Consecutive failed fetches (drives the backoff), the reason of the last one, and since when
  -- the feed has been failing: the console's integration health.
  failure_count integer NOT NULL DEFAULT 0,
  last_error text,
  failing_since timestamptz,
  last_status text CHECK (last_status IS NULL OR last_status IN ('ok', 'not_modified', 'failed')),
  last_fetch_at timestamptz,
  last_success_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Listing an institution's feeds in creation order.
CREATE INDEX calendar_feeds_institution_idx ON calendar_feeds (institution_id, created_at);
-- The worker's claim reads the feeds that are due, oldest due first, across institutions.
CREATE INDEX calendar_feeds_due_idx ON calendar_feeds (next_fetch_at);

CREATE TABLE calendar_feed_fetches (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  feed_id uuid NOT NULL REFERENCES calendar_feeds (id) ON DELETE CASCADE,
  -- schedule (the worker) or manual (POST .../fetch)
  trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status text NOT NULL CHECK (status IN ('ok', 'not_modified', 'failed')),
  http_status integer,
  events_added integer NOT NULL DEFAULT 0,
  events_updated integer NOT NULL DEFAULT 0,
  events_removed integer NOT NULL DEFAULT 0,
  -- Occurrences stored for the feed after this fetch, and VEVENTs the parser had to skip.
  events_total integer,
  events_skipped integer NOT NULL DEFAULT 0,
  error text
);
-- A feed's history, newest first, and pruning it to the most recent entries.
CREATE INDEX calendar_feed_fetches_feed_idx ON calendar_feed_fetches (feed_id, id);

-- One row per occurrence: a single event has recurrence_id '' (none); an occurrence of a
-- recurring event has the original start of that occurrence (UTC instant, or a date for
-- all-day events), whether it comes from the rule or from a RECURRENCE-ID override.
-- All-day events keep their dates as midnight UTC in starts_at/ends_at (end exclusive).
CREATE TABLE calendar_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  feed_id uuid NOT NULL REFERENCES calendar_feeds (id) ON DELETE CASCADE,
  uid text NOT NULL,
  recurrence_id text NOT NULL DEFAULT '',
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  all_day boolean NOT NULL,
  summary text,
  location text,
  description text,
  status text NOT NULL CHECK (status IN ('confirmed', 'tentative', 'cancelled')),
  -- SHA-256 of the fields above as parsed: a fetch rewrites only the occurrences that changed.
  content_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at >= starts_at)
);
-- Identity of an occurrence within its feed: the key a fetch matches the new feed against
-- (and the feed-scoped lookup that loads the existing occurrences before the diff).
CREATE UNIQUE INDEX calendar_events_occurrence_key ON calendar_events (feed_id, uid, recurrence_id);
-- The window listing: an institution's occurrences by start time.
CREATE INDEX calendar_events_window_idx ON calendar_events (institution_id, starts_at);
