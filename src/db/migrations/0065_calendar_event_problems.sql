-- The events a fetch left out or cut short, each with its UID, summary and the reason (a
-- recurrence rule that can never match, one that matches too rarely to expand, an unreadable
-- event): at most 20 a fetch, a JSON array of {uid, summary, problem}, shown on the feed's page
-- so the admin knows which events to have fixed (docs/calendar-feeds.md). The text comes from
-- the public calendar itself.
ALTER TABLE calendar_feed_fetches ADD COLUMN problems jsonb NOT NULL DEFAULT '[]'::jsonb;
