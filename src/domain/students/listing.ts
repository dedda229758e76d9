// The students listing's filters, defined once (the admin API's query schema and the console's
// students page check them with the same schema), and the export of the matching students as
// CSV: read in keyset batches so the memory held is one batch whatever the size of the
// institution. Each batch is its own query (no transaction spans the download): a student present
// throughout is written exactly once; one created or departed during the download may or may not be.
import { type Static, Type } from 'typebox';
import type { Db } from '../../db/db.ts';
import { csvRow } from '../../lib/csv.ts';
import type { CursorKey } from '../../lib/cursor.ts';
import { Text, Uuid } from '../../lib/schema.ts';
import { listStudents } from '../institutions/listings.ts';
import type { StudentFilter, StudentListing } from '../institutions/schemas.ts';

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
export type StudentQuery = Static<typeof StudentQuery>;

/** The listing filter of a query's values. */
export function studentFilter(query: StudentQuery): StudentFilter {
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

export const studentCsvColumns = [
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

/** The students matching a filter as CSV text, a header row then one batch of rows at a time. */
export async function* studentsCsv(
  db: Db,
  institutionId: string,
  filter: StudentFilter,
): AsyncGenerator<string> {
  yield csvRow(studentCsvColumns);
  let after: CursorKey | undefined;
  do {
    const page = await listStudents(db, institutionId, { ...filter, limit: CSV_BATCH, after });
    yield page.items.map((student) => csvRow(studentCsvColumns.map((column) => student[column]))).join('');
    after = page.next ?? undefined;
  } while (after);
}
