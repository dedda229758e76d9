// The students listing's filters, shared by the JSON listing and the CSV export, and the export
// itself: the domain's CSV of the matching students (src/domain/students/listing.ts), streamed as
// it is read.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type {
  Institution,
  InstitutionsService,
  StudentFilter,
} from '../../../domain/institutions/service.ts';
import { studentsCsv } from '../../../domain/students/listing.ts';

export { StudentQuery, studentFilter } from '../../../domain/students/listing.ts';

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
