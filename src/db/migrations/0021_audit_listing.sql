-- The console's audit page reads an institution's help-request audit newest first, filtered by
-- date and actor: without this index every page would scan the institution's whole timeline.
CREATE INDEX help_request_timeline_institution_idx
  ON help_request_timeline (institution_id, created_at DESC, seq DESC);
