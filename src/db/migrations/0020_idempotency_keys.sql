-- Idempotency-Key (IETF draft, as Stripe does it): the first answer to a POST that creates
-- something is kept per caller and key for 24 hours and replayed to a retry with the same key.
-- caller: 'operator', 'person:<id>' or 'student:<id>' (keys of different callers never meet).
-- request_hash: SHA-256 of the method, route, path parameters and body; the same key with
--   another request is refused (422) instead of replaying an answer to something else.
-- status NULL: the first request is still running (a retry meanwhile is 409); a claim left
--   running for longer than a request can take is treated as abandoned and claimed afresh.
-- response: the first answer's status line headers and body, sealed with the service's keyring,
--   since it may hold a secret shown once (an issued roster secret) or personal data.
CREATE TABLE idempotency_keys (
  caller text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status integer,
  response text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (caller, key)
);

-- Expiry deletes by age.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
