-- The worker deletes finished notifications 30 days after they were queued (once an hour): this
-- index lets it read only the old rows instead of the whole outbox.
CREATE INDEX notifications_created_idx ON notifications (created_at);

-- The console's and the API's recent notifications in one state (`?state=failed`), newest first:
-- a range of this index, instead of every notification of the institution filtered by state
-- (failures are few among many sent emails).
CREATE INDEX notifications_state_idx ON notifications (institution_id, state, created_at DESC, id DESC);
