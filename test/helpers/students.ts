// Students inserted straight into the table, for tests and benchmarks (one set-based INSERT):
// given rows, or `count` numbered students with unique emails and SIS ids.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../src/db/db.ts';

export interface StudentRow {
  email: string;
  student_id_ext: string;
  first_name?: string;
}

/** Inserts the rows into the tenant's cohort; their ids, in order. */
export async function insertStudents(
  db: Queryable,
  tenant: { institutionId: string; cohortId: string },
  students: StudentRow[],
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name)
     SELECT $1, $2, r.email, r.student_id_ext, r.first_name
     FROM jsonb_to_recordset($3::jsonb) AS r(email text, student_id_ext text, first_name text)
     RETURNING id`,
    [tenant.institutionId, tenant.cohortId, JSON.stringify(students)],
  );
  return rows.map((r) => r.id);
}

/** `count` students named "Student 1".. with unique emails and SIS ids. */
export function numberedStudents(count: number): StudentRow[] {
  const prefix = randomBytes(4).toString('hex');
  return Array.from({ length: count }, (_, i) => ({
    email: `s${i + 1}-${prefix}@example.edu`,
    student_id_ext: `ext-${prefix}-${i + 1}`,
    first_name: `Student ${i + 1}`,
  }));
}
