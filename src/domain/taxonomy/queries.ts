// The taxonomy's read queries: an institution's terms and units, each a keyset page (one query,
// a range scan after the cursor however deep the page). The enrolments listing, which needs a
// walk of its own to stay cheap, is enrolment-listing.ts.
import type { Queryable } from '../../db/db.ts';
import { type KeysetPage, type Paged, readKeysetPage } from '../../db/keyset.ts';
import type { KeysetOrder } from '../../lib/cursor.ts';
import type { TermListing, UnitFilter, UnitListing } from './model.ts';

export type { TermListing, UnitFilter, UnitListing };

export const termOrder: KeysetOrder = { listing: 'terms', key: ['date', 'text'] };
export const unitOrder: KeysetOrder = { listing: 'units', key: ['text'] };
export const enrolmentOrder: KeysetOrder = { listing: 'enrolments', key: ['date', 'text', 'text', 'text'] };

/** The institution's terms, by start date then code. */
export async function listTerms(
  db: Queryable,
  institutionId: string,
  page: KeysetPage,
): Promise<Paged<TermListing>> {
  return readKeysetPage<TermListing>(
    db,
    `SELECT id, code AS term_code, name, to_char(start_date, 'YYYY-MM-DD') AS start_date,
            to_char(end_date, 'YYYY-MM-DD') AS end_date, created_at, updated_at,
            json_build_array(start_date, lower(code)) AS sort_key
     FROM terms
     WHERE institution_id = $1 AND ($2::date IS NULL OR (start_date, lower(code)) > ($2::date, $3::text))
     ORDER BY start_date, lower(code) LIMIT $4`,
    [institutionId],
    page,
    2,
  );
}

/** The institution's units (by code) with the program and campus they belong to. */
export async function listUnits(
  db: Queryable,
  institutionId: string,
  page: KeysetPage & UnitFilter,
): Promise<Paged<UnitListing>> {
  return readKeysetPage<UnitListing>(
    db,
    `SELECT u.id, u.code AS unit_code, u.name, p.code AS program_code, c.name AS campus_name,
            u.created_at, u.updated_at, json_build_array(lower(u.code)) AS sort_key
     FROM units u
     LEFT JOIN programs p ON p.id = u.program_id AND p.institution_id = u.institution_id
     LEFT JOIN campuses c ON c.id = u.campus_id AND c.institution_id = u.institution_id
     WHERE u.institution_id = $1 AND ($2::text IS NULL OR lower(p.code) = lower($2::text))
       AND ($3::text IS NULL OR lower(u.code) > $3::text)
     ORDER BY lower(u.code) LIMIT $4`,
    [institutionId, page.programCode ?? null],
    page,
  );
}
