// The inbox's search term, pure: what `q` may be and the LIKE pattern it stands for. A term is
// found anywhere in the student's name, email and SIS id, or in the request's text, whatever
// its case. Trigram indexes serve it (migration 0086), and a trigram needs three characters, so
// a shorter term is refused rather than answered by reading every request.
import { ApiError } from '../../errors.ts';

export const SEARCH_MIN = 3;
export const SEARCH_MAX = 200;

/**
 * The student's searchable text; word for word the expression of students_search_trgm_idx
 * (migration 0086), or the planner does not use the index.
 */
export const STUDENT_TEXT =
  "lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || email || ' ' || student_id_ext)";

/** The pattern of a search term (`%term%`, lower case, LIKE's wildcards taken literally); undefined for no term. */
export function searchPattern(q: string | undefined): string | undefined {
  const term = (q ?? '').trim().replace(/\s+/g, ' ');
  if (term === '') return undefined;
  if ([...term].length < SEARCH_MIN || [...term].length > SEARCH_MAX)
    throw new ApiError('invalid_field', {
      field: 'querystring.q',
      detail: `search for ${SEARCH_MIN} to ${SEARCH_MAX} characters of a name, email, SIS id or the request's text`,
    });
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
