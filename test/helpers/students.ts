// Students inserted straight into the table, for tests and benchmarks of the enrolment feed.
import type { Queryable } from '../../src/db/db.ts';

export async function insertStudents(
  db: Queryable,
  tenant: { institutionId: string; cohortId: string },
  students: { email: string; student_id_ext: string }[],
): Promise<void> {
  await db.query(
    `INSERT INTO students (institution_id, cohort_id, email, student_id_ext)
     SELECT $1, $2, r.email, r.student_id_ext
     FROM jsonb_to_recordset($3::jsonb) AS r(email text, student_id_ext text)`,
    [tenant.institutionId, tenant.cohortId, JSON.stringify(students)],
  );
}
