-- Why the last pull of a OneRoster source failed, as a stable code besides the reason in words
-- (last_error): a budget or the deadline passed, the provider's error, a refused token …
-- (docs/oneroster.md, "Limits"). NULL while the source is healthy.
ALTER TABLE oneroster_sources ADD COLUMN last_error_code text;
