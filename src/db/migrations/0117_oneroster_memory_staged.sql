-- What a OneRoster push changed in the memory (oneroster_memory, migration 0071), handed to the
-- service page by page while the push runs and made current only when it ran to its end
-- (POST /api/sis/oneroster/memory/commit): the push client no longer holds its changes until
-- the end, and a push that fails leaves the memory as it was. Rows of a push that never
-- completed are dropped a day later (at the institution's next commit).
--
-- Personal data, as oneroster_memory's: user and enrollment rows name a student_id_ext
-- (indexed, so that erasing a student removes their rows in one statement). docs/privacy.md.
CREATE TABLE oneroster_memory_staged (
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  -- Chosen by the push (a random UUID): its entries, apart from every other push's.
  push_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('org', 'course', 'class', 'user', 'enrollment')),
  sourced_id text NOT NULL CHECK (length(sourced_id) BETWEEN 1 AND 1000),
  -- As oneroster_memory.data; null: the entry is forgotten when the push is made current.
  data jsonb,
  student_id_ext text,
  staged_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (institution_id, push_id, kind, sourced_id)
);
-- Erasure of a student: every row naming them.
CREATE INDEX oneroster_memory_staged_student_idx ON oneroster_memory_staged (institution_id, student_id_ext)
  WHERE student_id_ext IS NOT NULL;
