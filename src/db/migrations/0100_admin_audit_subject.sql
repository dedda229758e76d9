-- What an admin change acted on, in words, as it was named when the change was made: a webhook
-- endpoint's or calendar feed's address, a cohort's or institution's name, a person's name. The
-- audit page and its CSV say "Ira Admin deleted the webhook endpoint https://…" with it, even
-- after the thing is gone (a deleted endpoint's row no longer exists to name it). Null for
-- changes that name nothing, and for entries written before this column.
ALTER TABLE admin_audit ADD COLUMN subject text CHECK (subject IS NULL OR length(subject) <= 500);
