// The SQL of the student area: an institution's crisis contacts (read in list order; replaced
// as a whole in one DELETE and one INSERT of every row, never a query per row), and the profile
// the student home page reads. A student's own requests have theirs in ./sql/own-requests.ts.
import type { Queryable } from '../../db/db.ts';
import type { StudentProfile, StudentRef } from './model.ts';

/** A stored contact, as the crisis-contacts schema (./crisis-contacts.ts) describes it. */
export interface StoredContact {
  name: string;
  phone: string | null;
  url: string | null;
  hours: string | null;
  description: string | null;
}

export async function listCrisisContacts(q: Queryable, institutionId: string): Promise<StoredContact[]> {
  const { rows } = await q.query<StoredContact>(
    `SELECT name, phone, url, hours, description FROM crisis_contacts
     WHERE institution_id = $1 ORDER BY position`,
    [institutionId],
  );
  return rows;
}

/** Replaces the stored list (inside the caller's transaction). */
export async function replaceStoredContacts(
  tx: Queryable,
  institutionId: string,
  contacts: StoredContact[],
  now: Date,
): Promise<void> {
  await tx.query('DELETE FROM crisis_contacts WHERE institution_id = $1', [institutionId]);
  if (contacts.length === 0) return;
  await tx.query(
    `INSERT INTO crisis_contacts (institution_id, position, name, phone, url, hours, description, updated_at)
     SELECT $1, c.position, c.name, c.phone, c.url, c.hours, c.description, $3
     FROM jsonb_to_recordset($2::jsonb)
       AS c(position integer, name text, phone text, url text, hours text, description text)`,
    [institutionId, JSON.stringify(contacts.map((contact, position) => ({ ...contact, position }))), now],
  );
}

/** The student behind a session with their cohort's clock and institution; none once departed. */
export async function selectStudentProfile(
  q: Queryable,
  student: StudentRef,
): Promise<StudentProfile | undefined> {
  const { rows } = await q.query<StudentProfile>(
    `SELECT s.id, s.first_name, s.program_id, s.campus_id, to_char(s.start_date, 'YYYY-MM-DD') AS start_date,
            c.clock, to_char(c.start_date, 'YYYY-MM-DD') AS cohort_start_date,
            i.name AS institution_name, i.slug AS institution_slug, i.time_zone
     FROM students s
     JOIN cohorts c ON c.id = s.cohort_id
     JOIN institutions i ON i.id = s.institution_id
     WHERE s.institution_id = $1 AND s.id = $2 AND s.departed_at IS NULL`,
    [student.institutionId, student.studentId],
  );
  return rows[0];
}
