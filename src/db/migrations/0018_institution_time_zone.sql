-- Each institution's time zone (an IANA name, checked by the service against the zones Node
-- knows): a student's "today", their six weeks and the times the student pages print are read
-- in it. Existing institutions keep counting in UTC, as they did before the column existed.
ALTER TABLE institutions ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC'
  CHECK (length(time_zone) BETWEEN 1 AND 64);
