-- Roster sync: a student's cohort must belong to the student's institution, and bulk pages
-- stay cheap.
--
-- One composite foreign key (cohort_id, institution_id) -> cohorts (id, institution_id)
-- replaces the two single-column ones: it also enforces that the cohort belongs to the same
-- institution, deleting an institution still cascades (institution -> cohorts -> students),
-- and a 5000-row insert runs 5000 fewer referential checks.
CREATE UNIQUE INDEX cohorts_id_institution_key ON cohorts (id, institution_id);
ALTER TABLE students DROP CONSTRAINT students_cohort_id_fkey;
ALTER TABLE students DROP CONSTRAINT students_institution_id_fkey;
ALTER TABLE students ADD CONSTRAINT students_cohort_institution_fkey
  FOREIGN KEY (cohort_id, institution_id) REFERENCES cohorts (id, institution_id) ON DELETE CASCADE;

-- Room in each page for updated row versions: a re-push that changes names, program, campus
-- or dates (no indexed column) becomes a HOT update that writes no index entries.
ALTER TABLE students SET (fillfactor = 85);
