-- Departures: students absent from an opt-in full sync of their cohort are marked departed
-- (never deleted); a later push that names them brings them back.
ALTER TABLE students ADD COLUMN departed_at timestamptz;
-- Bringing students back looks only at departed ones.
CREATE INDEX students_departed_idx ON students (institution_id) WHERE departed_at IS NOT NULL;

CREATE TABLE full_syncs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  cohort_id uuid NOT NULL REFERENCES cohorts (id) ON DELETE CASCADE,
  sync_id text NOT NULL,
  -- open: pages arriving; applied: departures written; held: over the threshold, waiting for an
  -- admin; confirmed / discarded: an admin decided.
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'applied', 'held', 'confirmed', 'discarded')),
  pages integer NOT NULL DEFAULT 0,
  cohort_size integer,
  departures integer,
  threshold numeric,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  decided_at timestamptz,
  decided_by text
);
CREATE UNIQUE INDEX full_syncs_key ON full_syncs (institution_id, cohort_id, sync_id);

-- Students any page of a full sync named (by email or student_id_ext, valid row or not).
CREATE TABLE full_sync_seen (
  full_sync_id uuid NOT NULL REFERENCES full_syncs (id) ON DELETE CASCADE,
  student_id uuid NOT NULL REFERENCES students (id) ON DELETE CASCADE,
  PRIMARY KEY (full_sync_id, student_id)
);

-- Departures computed on the final page: applied at once, or held for an admin's decision.
CREATE TABLE full_sync_departures (
  full_sync_id uuid NOT NULL REFERENCES full_syncs (id) ON DELETE CASCADE,
  student_id uuid NOT NULL REFERENCES students (id) ON DELETE CASCADE,
  PRIMARY KEY (full_sync_id, student_id)
);
