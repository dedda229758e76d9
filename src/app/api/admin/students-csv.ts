// The students listing's filters, shared by the JSON listing and the CSV export, and the export
// itself: the matching students streamed as CSV, read from the database in keyset batches so the
// memory held is one batch whatever the size of the institution. Each batch is its own query
// (no transaction spans the download): a student present throughout is written exactly once;
// one created or departed during the download may or may not be.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type {
  Institution,
  InstitutionsService,
  StudentFilter,
  StudentListing,
} from '../../../domain/institutions/service.ts';
import { csvRow } from '../../../lib/csv.ts';
import type { CursorKey } from '../../../lib/cursor.ts';
import { Text, Uuid } from '../schemas.ts';

export const StudentQuery = Type.Object({
  q: Type.Optional(
    Text({
      minLength: 1,
      maxLength: 200,
      description: 'Case-insensitive prefix of the email, external id, full name or last name',
    }),
  ),
  cohort_id: Type.Optional(Uuid('Only this cohort')),
  email: Type.Optional(Text({ maxLength: 320, description: 'Exact email, case-insensitive' })),
  student_id_ext: Type.Optional(Text({ maxLength: 200, description: 'Exact external (SIS) id' })),
  program: Type.Optional(Text({ maxLength: 200, description: 'Program code, case-insensitive' })),
  campus: Type.Optional(Text({ maxLength: 200, description: 'Campus name, case-insensitive' })),
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('departed')], {
      description: 'active: not departed; departed: marked departed by a full sync',
    }),
  ),
});

export function studentFilter(query: {
  q?: string;
  cohort_id?: string;
  email?: string;
  student_id_ext?: string;
  program?: string;
  campus?: string;
  status?: 'active' | 'departed';
}): StudentFilter {
  return {
    q: query.q,
    cohortId: query.cohort_id,
    email: query.email,
    studentIdExt: query.student_id_ext,
    program: query.program,
    campus: query.campus,
    status: query.status,
  };
}

/** Rows per query of the export: large enough to amortise a round trip, small enough to hold. */
const CSV_BATCH = 2000;

const columns = [
  'id',
  'email',
  'student_id_ext',
  'first_name',
  'last_name',
  'cohort_id',
  'program_code',
  'campus_name',
  'first_in_family',
  'start_date',
  'departed_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof StudentListing)[];

async function* studentsCsv(
  institutions: InstitutionsService,
  institutionId: string,
  filter: StudentFilter,
): AsyncGenerator<string> {
  yield csvRow(columns);
  let after: CursorKey | undefined;
  do {
    const page = await institutions.listStudents(institutionId, { ...filter, limit: CSV_BATCH, after });
    yield page.items.map((student) => csvRow(columns.map((column) => student[column]))).join('');
    after = page.next ?? undefined;
  } while (after);
}

export function sendStudentsCsv(
  reply: FastifyReply,
  institutions: InstitutionsService,
  institution: Institution,
  filter: StudentFilter,
) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${institution.slug}-students.csv"`)
    .send(Readable.from(studentsCsv(institutions, institution.id, filter)));
}
