-- What completed OneRoster pushes and pulls placed, per institution: the service is the memory a
-- delta needs, whichever machine sends it (docs/oneroster.md, "Deltas"). One row per record of
-- the SIS: an org with what it became (program or campus), a course with its unit, a class with
-- its unit and term, a user with their student (or none: not a student), an enrollment with the
-- student, unit and term it placed. Written only when a push or pull ran to its end.
--
-- Personal data: user rows hold a student's sourcedId and student_id_ext, enrollment rows the
-- student_id_ext they placed (student_id_ext below, indexed so that erasing a student removes
-- their rows in one statement). docs/privacy.md.
CREATE TABLE oneroster_memory (
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('org', 'course', 'class', 'user', 'enrollment')),
  sourced_id text NOT NULL CHECK (length(sourced_id) BETWEEN 1 AND 1000),
  -- user (a student): {student, orgs}; user (not a student): {student: null, orgs: []};
  -- class: {unit, term}; course: {unit}; org: {kind, key}; enrollment: {student, unit, term}.
  data jsonb NOT NULL,
  student_id_ext text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (institution_id, kind, sourced_id)
);
-- Erasure of a student: every row naming them.
CREATE INDEX oneroster_memory_student_idx ON oneroster_memory (institution_id, student_id_ext)
  WHERE student_id_ext IS NOT NULL;

-- The pulls' memory kept until now in their source's row (version 1: students, others,
-- classes, courses), moved here; the column is emptied so the student data lives in one place.
INSERT INTO oneroster_memory (institution_id, kind, sourced_id, data, student_id_ext)
SELECT s.institution_id, 'user', e.key,
       jsonb_build_object('student', e.value ->> 0, 'orgs', e.value - 0), e.value ->> 0
FROM oneroster_sources s, jsonb_each(CASE WHEN jsonb_typeof(s.known -> 'students') = 'object'
                                          THEN s.known -> 'students' ELSE '{}'::jsonb END) e
WHERE jsonb_typeof(e.value) = 'array' AND e.value ->> 0 IS NOT NULL
UNION ALL
SELECT s.institution_id, 'user', o.value, '{"student": null, "orgs": []}'::jsonb, NULL
FROM oneroster_sources s, jsonb_array_elements_text(CASE WHEN jsonb_typeof(s.known -> 'others') = 'array'
                                                         THEN s.known -> 'others' ELSE '[]'::jsonb END) o
UNION ALL
SELECT s.institution_id, 'class', c.key, jsonb_build_object('unit', c.value ->> 0, 'term', c.value ->> 1), NULL
FROM oneroster_sources s, jsonb_each(CASE WHEN jsonb_typeof(s.known -> 'classes') = 'object'
                                          THEN s.known -> 'classes' ELSE '{}'::jsonb END) c
WHERE jsonb_typeof(c.value) = 'array'
UNION ALL
SELECT s.institution_id, 'course', c.key, jsonb_build_object('unit', c.value #>> '{}'), NULL
FROM oneroster_sources s, jsonb_each(CASE WHEN jsonb_typeof(s.known -> 'courses') = 'object'
                                          THEN s.known -> 'courses' ELSE '{}'::jsonb END) c
WHERE jsonb_typeof(c.value) = 'string'
ON CONFLICT DO NOTHING;
UPDATE oneroster_sources SET known = '{}' WHERE known <> '{}';
