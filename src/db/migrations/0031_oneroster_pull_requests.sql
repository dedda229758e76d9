-- "Sync now" queues a pull for the worker instead of running it inside the HTTP request
-- (docs/oneroster.md). A requested pull is the source's row: the run id it will be recorded
-- under (answered at once, and polled), the mode chosen when it was asked for, and when. The
-- worker claims requested sources like due ones; the pull's end clears the request.
ALTER TABLE oneroster_sources
  ADD COLUMN requested_run_id uuid,
  ADD COLUMN requested_mode text CHECK (requested_mode IN ('full', 'delta')),
  ADD COLUMN requested_at timestamptz,
  ADD CONSTRAINT oneroster_sources_request_check
    CHECK ((requested_run_id IS NULL) = (requested_at IS NULL) AND (requested_run_id IS NULL) = (requested_mode IS NULL));
-- The worker's claim reads the requested sources beside the due ones.
CREATE INDEX oneroster_sources_requested_idx ON oneroster_sources (requested_at) WHERE requested_at IS NOT NULL;
