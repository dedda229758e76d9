-- OneRoster sources: an institution's OneRoster 1.2 REST provider, which the service pulls on a
-- schedule (and on demand) and applies through the same paths as the SIS feeds. Each pull is a
-- run in the push history (sis_runs, kind oneroster, trigger pull). docs/oneroster.md.

CREATE TABLE oneroster_sources (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- One source per institution.
  institution_id uuid NOT NULL UNIQUE REFERENCES institutions (id) ON DELETE CASCADE,
  base_url text NOT NULL CHECK (length(base_url) BETWEEN 1 AND 2048),
  token_url text NOT NULL CHECK (length(token_url) BETWEEN 1 AND 2048),
  client_id text NOT NULL CHECK (length(client_id) BETWEEN 1 AND 500),
  -- Sealed with the keyring (src/lib/encryption.ts); never returned.
  client_secret_encrypted text NOT NULL,
  -- The cohort that receives the students.
  cohort_id uuid NOT NULL REFERENCES cohorts (id) ON DELETE CASCADE,
  -- Orgs to take (sourcedIds; their students, classes and child orgs); empty: every org.
  org_ids text[] NOT NULL DEFAULT '{}',
  -- The mapping's choices: term_types, campus_org_types, programs_from, program_org_types, student_id.
  mapping jsonb NOT NULL DEFAULT '{}',
  -- Schedule: a delta pull every pull_every_minutes (NULL: on demand only), a full pull when
  -- the last one is older than full_every_hours.
  pull_every_minutes integer CHECK (pull_every_minutes IS NULL OR pull_every_minutes BETWEEN 5 AND 10080),
  full_every_hours integer NOT NULL DEFAULT 24 CHECK (full_every_hours BETWEEN 1 AND 8760),
  next_pull_at timestamptz,
  -- A pull in flight holds the lease until lease_until (a worker that dies lets it lapse).
  lease_token uuid,
  lease_until timestamptz,
  -- Delta pulls ask for records modified after delta_since: the start of the last good pull.
  delta_since timestamptz,
  last_full_at timestamptz,
  -- What the pulls said, for what a delta omits (src/domain/oneroster/known.ts).
  known jsonb NOT NULL DEFAULT '{}',
  failure_count integer NOT NULL DEFAULT 0,
  last_error text,
  failing_since timestamptz,
  last_pull_at timestamptz,
  last_success_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The worker's claim reads the sources that are due, across institutions.
CREATE INDEX oneroster_sources_due_idx ON oneroster_sources (next_pull_at) WHERE next_pull_at IS NOT NULL;

-- Pulls in the push history: a run of kind oneroster, authenticated by no secret of ours.
ALTER TABLE sis_runs DROP CONSTRAINT sis_runs_kind_check;
ALTER TABLE sis_runs ADD CONSTRAINT sis_runs_kind_check CHECK (kind IN ('roster', 'enrolments', 'oneroster'));
ALTER TABLE sis_runs DROP CONSTRAINT sis_runs_credential_check;
ALTER TABLE sis_runs ADD CONSTRAINT sis_runs_credential_check
  CHECK (credential IN ('institution_secret', 'bootstrap_secret', 'oneroster_source'));
ALTER TABLE sis_runs ADD COLUMN trigger text NOT NULL DEFAULT 'push' CHECK (trigger IN ('push', 'pull'));
