// The students listing's filters, shared by the JSON listing and the CSV export, and the export
// itself: the domain's CSV of the matching students (src/domain/students/listing.ts), streamed as
// it is read.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Db } from '../../../db/db.ts';
import type { Institution, StudentFilter } from '../../../domain/institutions/schemas.ts';
import { studentsCsv } from '../../../domain/students/listing.ts';

export { StudentQuery, studentFilter } from '../../../domain/students/listing.ts';

export function sendStudentsCsv(
  reply: FastifyReply,
  db: Db,
  institution: Institution,
  filter: StudentFilter,
) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${institution.slug}-students.csv"`)
    .send(Readable.from(studentsCsv(db, institution.id, filter)));
}
