// The read-only listings of an institution the admin API and the console show: students (with
// their filters), programs, campuses and audience tags. Each is one keyset query (./queries.ts).
import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { KeysetOrder } from '../../lib/cursor.ts';
import { uuidPattern } from '../../lib/ids.ts';
import {
  selectAudienceTagPage,
  selectCampusPage,
  selectProgramPage,
  selectStudent,
  selectStudentPage,
} from './queries.ts';
import type { StudentListing } from './schemas.ts';

/** The listings' orders; a cursor of one is refused by the others. */
export const studentOrder: KeysetOrder = { listing: 'students', key: ['text'] };
export const programOrder: KeysetOrder = { listing: 'programs', key: ['text'] };
export const campusOrder: KeysetOrder = { listing: 'campuses', key: ['text'] };
export const audienceTagOrder: KeysetOrder = { listing: 'audience-tags', key: ['text', 'text', 'uuid'] };

const studentNotFound = (id: string) =>
  new ApiError('student_not_found', { detail: `no student with id "${id}" in this institution` });

/**
 * Students by email (case-insensitive, unique per institution). The filters combine; `q`
 * is a prefix search served by the prefix indexes of migration 0013.
 */
export const listStudents = selectStudentPage;

/** A student of the institution; another institution's is student_not_found like an unknown id. */
export async function getStudent(db: Db, institutionId: string, studentId: string): Promise<StudentListing> {
  if (!uuidPattern.test(studentId)) throw studentNotFound(studentId);
  const found = await selectStudent(db, institutionId, studentId);
  if (!found) throw studentNotFound(studentId);
  return found;
}

/** Programs by code, campuses by name, audience tags by kind then label (case-insensitive). */
export const listPrograms = selectProgramPage;
export const listCampuses = selectCampusPage;
export const listAudienceTags = selectAudienceTagPage;
