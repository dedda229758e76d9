-- The worker deletes finished notifications 30 days after they were queued (once an hour): this
-- index lets it read only the old rows instead of the whole outbox.
CREATE INDEX notifications_created_idx ON notifications (created_at);
