-- Outbound webhooks: endpoints per institution, one delivery row per (event, endpoint), and
-- the log of every attempt. Events are fanned out to deliveries by a trigger on `events`, so a
-- change, its event and the deliveries announcing it commit (or roll back) together.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  description text CHECK (description IS NULL OR length(description) <= 500),
  -- Empty array: every event type (present and future); otherwise only these types.
  event_types text[] NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  disabled_at timestamptz,
  -- Signing secret (whsec_<base64 key>). Kept as key material because it is needed to sign:
  -- never returned by the API after creation or rotation, never logged.
  secret text NOT NULL,
  -- The secret replaced by the last rotation, still used to sign until it expires.
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- Start of the current unbroken run of failed attempts (NULL after any success).
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_institution_idx ON webhook_endpoints (institution_id, created_at);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  -- pending: waiting for (or in) an attempt, succeeded, or failed (gave up, or endpoint disabled)
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- When pending: due time. A claim moves it to the lease expiry, so a worker that dies
  -- mid-delivery simply lets the row fall due again.
  next_attempt_at timestamptz NOT NULL,
  lease_token uuid,
  lease_until timestamptz,
  last_status integer,
  last_error text,
  last_attempt_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE UNIQUE INDEX webhook_deliveries_event_endpoint_key ON webhook_deliveries (event_id, endpoint_id);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (created_at) WHERE state <> 'pending';
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (endpoint_id, completed_at) WHERE state = 'failed';

-- Only the delivery is a foreign key: deleting an endpoint or institution cascades through it.
CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  institution_id uuid NOT NULL,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL,
  event_id uuid NOT NULL,
  attempted_at timestamptz NOT NULL,
  -- success | http_error | timeout | connection_error | redirect | blocked_address
  outcome text NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  error text
);
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, id);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);
CREATE INDEX webhook_attempts_time_idx ON webhook_attempts (attempted_at);

-- Fan-out: every event of an institution becomes one pending delivery per enabled endpoint of
-- that institution subscribed to its type. `webhook.*` events (test events) are addressed to
-- one endpoint explicitly and are not fanned out.
CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.type LIKE 'webhook.%' THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (institution_id, endpoint_id, event_id, next_attempt_at)
  SELECT NEW.institution_id, e.id, NEW.id, LEAST(NEW.occurred_at, now())
  FROM webhook_endpoints e
  WHERE e.institution_id = NEW.institution_id
    AND e.enabled
    AND (cardinality(e.event_types) = 0 OR NEW.type = ANY (e.event_types));
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION webhook_fan_out();

-- The delivery queue is updated constantly: vacuum and analyse it far more eagerly than the
-- defaults so dead row versions do not slow the claim query down.
ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01,
  autovacuum_vacuum_cost_delay = 0);
