-- Exact filters of the console's lists, served by the database rather than by filtering a page
-- already read: the inbox's assignment filter and crisis-first order, and push history's
-- "with errors" filter. Rules: docs/admin-listings.md.

-- Help requests assigned to one staff member (or to no one: IS NULL is an index condition),
-- newest first: `assigned=me`, `assigned=none` and `assigned=<person id>` read a range of this
-- index in order instead of every request of the institution.
CREATE INDEX help_requests_assigned_idx ON help_requests (institution_id, assigned_to, created_at, id);

-- The inbox's crisis-first order (`order=crisis_first`): open crisis requests, then the rest,
-- each newest first. The expression must stay word for word the one of
-- src/domain/helpdesk/listing.ts (OPEN_CRISIS) for the planner to match it; each page is then
-- a range scan after the cursor, like the newest-first order.
CREATE INDEX help_requests_crisis_first_idx ON help_requests (
  institution_id,
  (CASE WHEN priority = 'crisis' AND status <> 'resolved' THEN 1 ELSE 0 END),
  created_at,
  id
);

-- Push history's `has_errors=true`: the runs with row errors are usually a few among many, so a
-- partial index holds only them, newest first by the listing's own key. The day range
-- (`from`, `to`) is a range of started_at, which sis_runs_listing_idx serves already.
CREATE INDEX sis_runs_errors_idx ON sis_runs (institution_id, started_at, id) WHERE error_count > 0;
