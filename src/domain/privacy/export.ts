// A student's export (GDPR article 15): everything the service holds about one student, found by
// id, email or SIS id, as one JSON document: the student record, every help request with its
// conversation, notes, events and status history, enrolments, notifications sent about them,
// their sign-in links and sessions, and the reads (access log) and writes (admin audit) recorded
// about them, and push-history row errors naming them. `exportChunks` yields the document in
// pieces (help requests a page at a time) for the API to stream; `exportDocument` builds it whole
// for the console's readable page.
import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Caller } from '../access/policy.ts';
import type { Deps } from '../deps.ts';
import { recordAccess } from './access-log.ts';
import { type ExportedStudent, erasurePreview, findStudent, requestPage, section } from './queries/export.ts';

export const EXPORT_FORMAT = 'ssp-student-export/1';
const SECTIONS = [
  'enrolments',
  'notifications',
  'sign_in_links',
  'sessions',
  'reads',
  'writes',
  'push_history',
];
const REQUEST_PAGE = 100;

export interface StudentLookup {
  id?: string;
  email?: string;
  student_id_ext?: string;
}

/** The student a lookup names; 404 student_not_found when none (or the lookup names nothing). */
export async function requireStudent(db: Queryable, institutionId: string, by: StudentLookup) {
  const id = by.id && /^[0-9a-f-]{36}$/i.test(by.id) ? by.id : undefined;
  const found =
    id || by.email || by.student_id_ext
      ? await findStudent(db, institutionId, { id, email: by.email, student_id_ext: by.student_id_ext })
      : undefined;
  if (!found)
    throw new ApiError('student_not_found', { detail: 'no student matches the id, email or SIS id given' });
  return found;
}

/**
 * The student a lookup names (404 when none), with their export recorded in the access log (who
 * looked) before any of it is read: the API's download and the console's pages alike.
 */
export async function studentForExport(
  deps: Pick<Deps, 'db' | 'clock'>,
  caller: Caller,
  institutionId: string,
  by: StudentLookup,
  surface: 'console' | 'api',
) {
  const student = await requireStudent(deps.db, institutionId, by);
  await recordAccess(deps, caller, institutionId, 'export', { studentId: student.id }, surface);
  return student;
}

async function* requests(db: Queryable, institutionId: string, studentId: string) {
  let after: string | null = null;
  for (;;) {
    const page = await requestPage(db, institutionId, studentId, after, REQUEST_PAGE);
    for (const row of page) yield row.request;
    if (page.length < REQUEST_PAGE) return;
    after = page[page.length - 1].id;
  }
}

/** The document as JSON text pieces, in order; nothing of it is held whole. */
export async function* exportChunks(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institution: { id: string; slug: string },
  student: ExportedStudent,
): AsyncGenerator<string> {
  const head = {
    format: EXPORT_FORMAT,
    exported_at: clock.now().toISOString(),
    institution: institution.slug,
    student,
  };
  yield `${JSON.stringify(head).slice(0, -1)},"help_requests":[`;
  let first = true;
  for await (const request of requests(db, institution.id, student.id)) {
    yield (first ? '' : ',') + JSON.stringify(request);
    first = false;
  }
  yield ']';
  // The smaller sections are read at once (each is bounded by one student's rows).
  const values = await Promise.all(SECTIONS.map((name) => section(db, name, institution.id, student.id)));
  for (const [i, name] of SECTIONS.entries()) yield `,${JSON.stringify(name)}:${JSON.stringify(values[i])}`;
  yield '}';
}

/** The whole document as an object (the console's readable page). */
export async function exportDocument(
  deps: Pick<Deps, 'db' | 'clock'>,
  institution: { id: string; slug: string },
  student: ExportedStudent,
): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of exportChunks(deps, institution, student)) text += chunk;
  return JSON.parse(text);
}

/** What an erasure of the student would remove, counted per table (404 when unknown): the confirmation. */
export async function previewErasure(db: Queryable, institutionId: string, studentId: string) {
  const student = await requireStudent(db, institutionId, { id: studentId });
  return { student, removes: await erasurePreview(db, institutionId, student.id) };
}
