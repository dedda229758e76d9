-- Help requests are assigned to a person (by id), not to a name: two staff members with the same
-- name each keep their own "assigned to me" list, and a renamed person keeps theirs. Rules:
-- docs/help-sync.md ("Assignment").
--
-- People are removed softly (people.removed_at), so a removed person's row stays and so do the
-- requests assigned to them: the request still names them until someone reassigns it, and the
-- service refuses new assignments to a removed person. People rows are deleted only with their
-- institution, which deletes its help requests too; SET NULL only keeps that delete possible.
ALTER TABLE help_requests ADD COLUMN assigned_person_id uuid REFERENCES people (id) ON DELETE SET NULL;

-- Backfill, set-based: a recorded name that exactly one person of the same institution bears
-- (removed or not) becomes that person. A name borne by no one or by several people cannot be
-- told apart, so it stays in assigned_to as it was: the request is still shown as assigned to
-- that name (and counts for assigned=any) until staff assign it to a person.
UPDATE help_requests h SET assigned_person_id = m.person_id, assigned_to = NULL
FROM (
  SELECT p.institution_id, p.name, min(p.id::text)::uuid AS person_id
  FROM people p
  WHERE p.institution_id IS NOT NULL
  GROUP BY p.institution_id, p.name
  HAVING count(*) = 1
) m
WHERE h.assigned_to IS NOT NULL AND m.institution_id = h.institution_id AND m.name = h.assigned_to;

-- From now on assigned_to holds only such an unmatched legacy name; an assignment made after
-- this migration sets assigned_person_id and clears it, so a request has at most one of them.
COMMENT ON COLUMN help_requests.assigned_to IS
  'A name assigned before 0019 that matched no single person; null once assigned to a person';
ALTER TABLE help_requests ADD CONSTRAINT help_requests_one_assignee
  CHECK (assigned_person_id IS NULL OR assigned_to IS NULL);

-- The assignment filter by id: `assigned=me` and `assigned=<person id>` read a range of this
-- index, newest first, instead of every request of the institution (an index-only scan on
-- PostgreSQL with 50,000 requests). `assigned=none` may read the range where the id IS NULL (an
-- index condition), the few legacy names filtered from it; when unassigned requests are common,
-- the planner reads the newest-first index and filters instead, which fills a page as fast. It
-- replaces 0017's index on the name, which no query filters by any more.
CREATE INDEX help_requests_assigned_person_idx
  ON help_requests (institution_id, assigned_person_id, created_at, id);
DROP INDEX help_requests_assigned_idx;

-- Timeline entries of assignments record the person's id beside the name they had then. No
-- foreign key: the timeline is append-only, and an entry keeps naming whoever it named.
ALTER TABLE help_request_timeline ADD COLUMN assigned_person_id uuid;
