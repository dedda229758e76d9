-- What each delivery attempt sent and got back, as a webhook portal shows it: the request's
-- headers (its body is the event's payload, kept with the event), and the response's status
-- (status_code), headers and first 4 KiB of body. Attempts before this migration have none.
ALTER TABLE webhook_attempts
  ADD COLUMN request_headers jsonb,
  ADD COLUMN response_headers jsonb,
  ADD COLUMN response_body text;
