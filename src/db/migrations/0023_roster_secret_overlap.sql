-- Rolling a roster secret without a hard cut-over: issuing a new one may leave the previous one
-- working until `expires_at` (at most 7 days, chosen by the admin), and each secret records when
-- it last authenticated a push, so the admin sees when the SIS has moved to the new one.
-- At most one current secret (no expiry) per institution; a previous one has an expiry.
ALTER TABLE roster_secrets
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN last_used_at timestamptz;
DROP INDEX roster_secrets_one_active;
CREATE UNIQUE INDEX roster_secrets_one_current ON roster_secrets (institution_id)
  WHERE revoked_at IS NULL AND expires_at IS NULL;
