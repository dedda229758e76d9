-- Webhook fixes: a per-endpoint due index (the worker claims a failing endpoint's deliveries
-- apart from the healthy ones) and the time of an endpoint's latest failed attempt (a failing
-- run restarts after a quiet gap, see docs/webhooks.md).
CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE state = 'pending';
ALTER TABLE webhook_endpoints ADD COLUMN last_failure_at timestamptz;
