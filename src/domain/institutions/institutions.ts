// Institutions (tenants) and their cohorts: creating, renaming, setting the time zone, and a
// cohort's clock and start date. Each function takes the database it works on; the SQL is in
// ./queries.ts. Every call is one statement.
import { type Db, PgErrorCode, pgConstraint, pgErrorCode, type Queryable } from '../../db/db.ts';
import type { KeysetPage, Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import type { KeysetOrder } from '../../lib/cursor.ts';
import { slugPattern, uuidPattern } from '../../lib/ids.ts';
import { canonicalTimeZone } from '../../lib/time-zones.ts';
import { type Caller, institutionNotFound } from '../access/policy.ts';
import {
  insertCohort,
  insertInstitution,
  selectCohort,
  selectCohortById,
  selectCohortPage,
  selectInstitutionById,
  selectInstitutionBySlug,
  selectInstitutionOverview,
  selectInstitutionPage,
  updateCohortRow,
  updateInstitutionRow,
} from './queries.ts';
import type { ArchivedFilter, Cohort, CohortClock, CohortOfInstitution, Institution } from './schemas.ts';

/** The listings' orders; a cursor of one is refused by the others. */
export const institutionOrder: KeysetOrder = { listing: 'institutions', key: ['text'] };
export const cohortOrder: KeysetOrder = { listing: 'cohorts', key: ['timestamp', 'uuid'] };

/** A time zone as stored: its canonical IANA name, or 400 invalid_field naming `time_zone`. */
export function checkTimeZone(value: string): string {
  const zone = canonicalTimeZone(value);
  if (!zone) {
    throw new ApiError('invalid_field', {
      field: 'time_zone',
      detail: `"${value.slice(0, 64)}" is not a time zone; use an IANA name such as Australia/Sydney or UTC`,
    });
  }
  return zone;
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A start date as YYYY-MM-DD that exists in the calendar (2026-02-30 is refused rather than
 * rolled over), between 1900 and 2200; null and undefined pass through.
 */
export function checkStartDate(value: string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return value;
  const ms = datePattern.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (
    !Number.isFinite(ms) ||
    !new Date(ms).toISOString().startsWith(value) ||
    ms < Date.UTC(1900, 0, 1) ||
    ms > Date.UTC(2200, 0, 1)
  ) {
    throw new ApiError('invalid_field', {
      field: 'start_date',
      detail: 'The start date must be a date written YYYY-MM-DD, for example 2026-09-07',
    });
  }
  return value;
}

/** 404 cohort_not_found: an unknown id, or a cohort of another institution. */
export const cohortNotFound = (id: string) =>
  new ApiError('cohort_not_found', { detail: `no cohort with id "${id}" in this institution` });

/** The institution named by slug; undefined for an unknown or malformed slug. */
export async function institutionBySlug(db: Db, slug: string): Promise<Institution | undefined> {
  return slugPattern.test(slug) ? selectInstitutionBySlug(db, slug) : undefined;
}

/** The institution with this id (a signed-in person's own), or undefined. */
export function institutionById(db: Db, id: string): Promise<Institution | undefined> {
  return selectInstitutionById(db, id);
}

/** The institution named by slug, or 404 institution_not_found. */
export async function requireInstitution(db: Db, slug: string): Promise<Institution> {
  const institution = await institutionBySlug(db, slug);
  if (!institution) throw institutionNotFound(slug);
  return institution;
}

/**
 * A display name that looks like another institution's: the same ignoring case and whitespace
 * (institutions_name_key, migration 0025), or the same skeleton (institutions_name_skeleton_key,
 * migration 0062: compatibility forms, invisible characters and lookalike letters of other
 * scripts folded). The shared sign-in page lists institutions by name, so two that read alike
 * would let one pose as the other.
 */
function nameTaken(name: string) {
  return new ApiError('institution_name_taken', {
    field: 'name',
    detail: `another institution's name looks like "${name}" (names are compared as they read: ignoring case, spaces, invisible characters and lookalike letters of other scripts): choose another name`,
  });
}

const nameConstraints = new Set(['institutions_name_key', 'institutions_name_skeleton_key']);

/**
 * Only the operator names institutions: the name is how people find their institution on the
 * shared sign-in page, so, like the email domains, it is not the institution's own to change
 * (docs/display-names.md). An admin may send the name as stored.
 */
function assertMayRename(by: Caller, stored: { name: string }, name: string | undefined): void {
  if (name === undefined || name === stored.name || by.kind === 'operator') return;
  throw new ApiError('institution_name_operator_only', {
    field: 'name',
    detail:
      'only the platform operator renames an institution (its name is how people find it at sign-in); ask them to change it',
  });
}

/**
 * Creates an institution (time zone UTC unless given); a slug taken already is 409 conflict, a
 * display name taken already 409 institution_name_taken.
 */
export async function createInstitution(
  db: Db,
  input: { slug: string; name: string; time_zone?: string },
): Promise<Institution> {
  const timeZone = checkTimeZone(input.time_zone ?? 'UTC');
  try {
    return await insertInstitution(db, { slug: input.slug, name: input.name, timeZone });
  } catch (error) {
    if (pgErrorCode(error) === PgErrorCode.uniqueViolation) {
      if (nameConstraints.has(pgConstraint(error) ?? '')) throw nameTaken(input.name);
      throw new ApiError('conflict', {
        field: 'slug',
        detail: `an institution with slug "${input.slug}" exists already`,
      });
    }
    throw error;
  }
}

/** Renames an institution or changes its time zone; fields not given are kept. */
export async function updateInstitution(
  db: Db,
  institutionId: string,
  changes: { name?: string; time_zone?: string },
  by: Caller,
): Promise<Institution> {
  const stored = await selectInstitutionById(db, institutionId);
  if (!stored) throw new ApiError('institution_not_found', { detail: 'no such institution' });
  assertMayRename(by, stored, changes.name);
  const timeZone = changes.time_zone === undefined ? null : checkTimeZone(changes.time_zone);
  try {
    return await updateInstitutionRow(db, institutionId, { name: changes.name ?? null, timeZone });
  } catch (error) {
    if (
      pgErrorCode(error) === PgErrorCode.uniqueViolation &&
      nameConstraints.has(pgConstraint(error) ?? '')
    ) {
      throw nameTaken(changes.name ?? '');
    }
    throw error;
  }
}

/** A page of the institutions, by slug (the operator's listing): the active ones unless `archived` says. */
export function listInstitutions(
  db: Db,
  page: KeysetPage & { archived?: ArchivedFilter },
): Promise<Paged<Institution>> {
  return selectInstitutionPage(db, { ...page, archived: page.archived ?? 'false' });
}

/** Each institution's students, last push and failing integrations, for the operator's list. */
export function institutionOverview(db: Queryable, institutionIds: readonly string[]) {
  return institutionIds.length ? selectInstitutionOverview(db, institutionIds) : Promise.resolve([]);
}

export async function createCohort(
  db: Db,
  institutionId: string,
  input: { name: string; clock: CohortClock; startDate?: string | null },
): Promise<Cohort> {
  const startDate = checkStartDate(input.startDate);
  return insertCohort(db, institutionId, {
    name: input.name,
    clock: input.clock,
    startDate: startDate ?? null,
  });
}

/** Changes a cohort's name, clock or start date (null clears it); absent fields stay. */
export async function updateCohort(
  db: Db,
  institutionId: string,
  cohortId: string,
  input: { name?: string; clock?: CohortClock; startDate?: string | null },
): Promise<Cohort> {
  if (!uuidPattern.test(cohortId)) throw cohortNotFound(cohortId);
  const startDate = checkStartDate(input.startDate);
  const updated = await updateCohortRow(db, institutionId, cohortId, {
    name: input.name ?? null,
    clock: input.clock ?? null,
    setStartDate: startDate !== undefined,
    startDate: startDate ?? null,
  });
  if (!updated) throw cohortNotFound(cohortId);
  return updated;
}

/** A page of the institution's cohorts, oldest first: the active ones unless `archived` says. */
export function listCohorts(
  db: Db,
  institutionId: string,
  page: KeysetPage & { archived?: ArchivedFilter },
): Promise<Paged<Cohort>> {
  return selectCohortPage(db, institutionId, { ...page, archived: page.archived ?? 'false' });
}

/** A cohort of the institution; another institution's is cohort_not_found like an unknown id. */
export async function getCohort(db: Db, institutionId: string, cohortId: string): Promise<Cohort> {
  if (!uuidPattern.test(cohortId)) throw cohortNotFound(cohortId);
  const found = await selectCohort(db, institutionId, cohortId);
  if (!found) throw cohortNotFound(cohortId);
  return found;
}

/**
 * A cohort by id, with its institution's slug and archived state (the roster feed's lookup), or
 * undefined when absent (or the id is not a UUID).
 */
export async function cohortById(db: Db, cohortId: string): Promise<CohortOfInstitution | undefined> {
  return uuidPattern.test(cohortId) ? selectCohortById(db, cohortId) : undefined;
}
