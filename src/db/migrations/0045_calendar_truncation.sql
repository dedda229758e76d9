-- A feed that expands to more occurrences than a feed may store (MAX_STORED_OCCURRENCES,
-- docs/calendar-feeds.md) is stored truncated rather than refused: each fetch records how many
-- occurrences it left out, and the feed keeps the figure of its last successful fetch so the
-- admin sees it with the feed's state.
ALTER TABLE calendar_feed_fetches ADD COLUMN events_truncated integer NOT NULL DEFAULT 0;
ALTER TABLE calendar_feeds ADD COLUMN events_truncated integer NOT NULL DEFAULT 0;
