-- The student pages (/app/): a start date for cohorts on the shared clock, each institution's
-- crisis contacts, and a category on help requests. Rules: docs/student-app.md.

-- The first day of a `cohort`-clock cohort's six weeks. Null until an admin sets it; an
-- `individual` cohort ignores it (each student's own students.start_date counts).
ALTER TABLE cohorts ADD COLUMN start_date date;

-- Who a student in crisis can reach at once, shown on the crisis form and on a crisis request's
-- page. A small ordered list per institution, replaced as a whole by the admin API (PUT).
CREATE TABLE crisis_contacts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  phone text CHECK (length(phone) BETWEEN 1 AND 50),
  url text CHECK (length(url) BETWEEN 1 AND 500),
  hours text CHECK (length(hours) BETWEEN 1 AND 200),
  description text CHECK (length(description) BETWEEN 1 AND 1000),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Reading an institution's list in order (the only query), and one row per place in it.
CREATE UNIQUE INDEX crisis_contacts_institution_key ON crisis_contacts (institution_id, position);

-- What a help request is about, chosen by the student (a fixed list; null for requests created
-- before categories existed, or through the admin API without one).
ALTER TABLE help_requests ADD COLUMN category text
  CHECK (category IN ('wellbeing', 'academic', 'financial', 'accommodation', 'other'));

-- A student's own requests, newest first: the student pages' list and lookup.
CREATE INDEX help_requests_student_created_idx ON help_requests (student_id, created_at DESC, id);
-- It leads with student_id, so it also serves what the single-column index did (the ON DELETE
-- SET NULL of a deleted student).
DROP INDEX help_requests_student_idx;

-- A student's events in a window are read feed by feed (the feeds meant for them): without this
-- index a student whose program has a small feed, beside another program's large one, waits
-- while the window index passes over every occurrence of the large one (bench/student-home.ts).
CREATE INDEX calendar_events_feed_start_idx ON calendar_events (feed_id, starts_at);
