// Departures (opt-in full sync). Students absent from a push are never touched by default.
// A client that wants departures sends every page of a cohort's roster with the same
// `sync_id` and marks the last one `final_page: true`. On the final page, the cohort's
// students that no page of the sync named are departed (never deleted), unless they are more
// than the configured share of the cohort: then they are held until an admin confirms or
// discards them. A departed student that a later push imports is brought back (roster sync's
// UPDATE clears departed_at).

import type { Queryable } from '../../db/db.ts';
import type { KeysetPage, Paged } from '../../db/keyset.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { ApiError } from '../../errors.ts';
import type { KeysetOrder } from '../../lib/cursor.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { isStorableText } from '../../lib/text.ts';
import { appendOperatorAudit } from '../audit/operator-audit.ts';
import type { Deps } from '../deps.ts';
import {
  applyDepartures,
  countActiveInCohort,
  type FullSyncRow,
  finishFullSync,
  insertSeen,
  insertUnnamedDepartures,
  lockFullSync,
  markDecided,
  previewDepartures,
  selectAllDepartingStudents,
  selectDeparturePage,
  selectFullSync,
  selectFullSyncPage,
  upsertFullSync,
} from './queries.ts';
import type { Decision, DepartingStudent, FullSyncListing, FullSyncStatus } from './schemas.ts';

export type { DepartingStudent, FullSyncListing, FullSyncStatus } from './schemas.ts';

/** Full syncs, newest first. */
export const fullSyncOrder: KeysetOrder = { listing: 'full-syncs', key: ['timestamp', 'uuid'] };
/**
 * A full sync's departing students, by student id: the order of the departures' primary key
 * (full_sync_id, student_id), so a page is an index range scan whatever its depth, where an
 * order by email would sort every departure of the sync for each page.
 */
export const departureOrder: KeysetOrder = { listing: 'full-sync-departures', key: ['uuid'] };

export interface NamedKeys {
  emails: string[];
  externalIds: string[];
}

/**
 * The keys a page names, from every row that carries them, valid or not: a student whose row
 * failed validation is still present upstream and must not be departed for it.
 */
export function namedKeys(rows: readonly unknown[]): NamedKeys {
  const emails = new Set<string>();
  const externalIds = new Set<string>();
  for (const row of rows) {
    if (!row || typeof row !== 'object') continue;
    const { email, student_id_ext } = row as Record<string, unknown>;
    // A key the database cannot store names no stored student.
    if (typeof email === 'string' && email.trim() && isStorableText(email))
      emails.add(email.trim().toLowerCase());
    if (typeof student_id_ext === 'string' && student_id_ext.trim() && isStorableText(student_id_ext)) {
      externalIds.add(student_id_ext.trim());
    }
  }
  return { emails: [...emails], externalIds: [...externalIds] };
}

/** What a roster response says about the full sync a page belongs to. */
export interface FullSyncOutcome {
  sync_id: string;
  status: FullSyncStatus;
  pages: number;
  final_page: boolean;
  /** Set once the final page arrived: active students of the cohort before departures. */
  cohort_size?: number;
  /** Set once the final page arrived: students no page named. */
  departures?: number;
  /** The share of the cohort above which departures are held. */
  threshold: number;
}

function outcome(row: FullSyncRow, finalPage: boolean, threshold: number): FullSyncOutcome {
  return {
    sync_id: row.sync_id,
    status: row.status,
    pages: row.pages,
    final_page: finalPage,
    ...(row.cohort_size === null ? {} : { cohort_size: row.cohort_size }),
    ...(row.departures === null ? {} : { departures: row.departures }),
    threshold: row.threshold === null ? threshold : Number(row.threshold),
  };
}

export interface FullSyncPage {
  institutionId: string;
  cohortId: string;
  syncId: string;
  finalPage: boolean;
  keys: NamedKeys;
  now: Date;
}

/**
 * Records one page of a full sync, in the push's transaction and after its rows are written.
 * A page that arrives after the sync was finished (a retried final page, say) changes nothing
 * and reports the stored outcome.
 */
export async function recordFullSyncPage(
  tx: Queryable,
  page: FullSyncPage,
  threshold: number,
): Promise<FullSyncOutcome> {
  const sync = await upsertFullSync(tx, page);
  if (sync.status !== 'open') return outcome(sync, page.finalPage, threshold);

  await insertSeen(tx, page, sync.id);
  if (!page.finalPage) return outcome(sync, false, threshold);

  const departures = await insertUnnamedDepartures(tx, page, sync.id);
  const cohortSize = await countActiveInCohort(tx, page);
  const hold = departures > 0 && departures > threshold * cohortSize;
  if (!hold && departures > 0) await applyDepartures(tx, page.institutionId, sync.id, page.now, undefined);
  const finished = await finishFullSync(tx, sync.id, {
    status: hold ? 'held' : 'applied',
    cohortSize,
    departures,
    threshold,
    at: page.now,
  });
  // Held departures are not the sync's final word; the page is recorded and the sync closed either way.
  return outcome(finished, true, threshold);
}

/** Read-only preview for a dry run: what the final page would depart, counting pages already recorded. */
export async function previewFullSyncPage(q: Queryable, page: FullSyncPage, threshold: number) {
  const { would_depart, cohort_size } = await previewDepartures(q, page);
  return {
    sync_id: page.syncId,
    final_page: page.finalPage,
    ...(page.finalPage
      ? { would_depart, cohort_size, would_hold: would_depart > 0 && would_depart > threshold * cohort_size }
      : {}),
    threshold,
  };
}

/** The full sync of the institution, or 404 not_found (another institution's too). */
async function requireSync(db: Queryable, institutionId: string, id: string): Promise<FullSyncListing> {
  const sync = uuidPattern.test(id) ? await selectFullSync(db, institutionId, id) : undefined;
  if (!sync) throw new ApiError('not_found', { detail: `no full sync ${id}` });
  return sync;
}

/** Full syncs, newest first, optionally of one status. */
export async function listFullSyncs(
  db: Queryable,
  institutionId: string,
  page: KeysetPage & { status?: string },
): Promise<Paged<FullSyncListing>> {
  return selectFullSyncPage(db, institutionId, page);
}

/**
 * A full sync; with `students`, also every student it departs (up to 10,000, by email), as
 * the API has always answered. Clients that show them page through `listDepartingStudents` instead.
 */
export async function getFullSync(
  db: Queryable,
  institutionId: string,
  id: string,
  options: { students: boolean } = { students: true },
): Promise<FullSyncListing & { departing_students?: DepartingStudent[] }> {
  const sync = await requireSync(db, institutionId, id);
  if (!options.students) return sync;
  return { ...sync, departing_students: await selectAllDepartingStudents(db, institutionId, id) };
}

/**
 * A page of the students a full sync departs (or holds), by student id. One query for the sync
 * and one for the page, at page 1 as at page 100.
 */
export async function listDepartingStudents(
  db: Queryable,
  institutionId: string,
  id: string,
  page: KeysetPage,
): Promise<Paged<DepartingStudent>> {
  await requireSync(db, institutionId, id);
  return selectDeparturePage(db, institutionId, id, page);
}

/**
 * An admin's decision on held departures: confirmed (the students are departed, except those
 * pushed since the sync finished) or discarded (nobody is). 404 for another institution's sync,
 * 409 when the sync is not held. Written to the operator audit in the same transaction.
 */
/** The decision an action names: `confirm` applies held departures, `discard` drops them. */
export const decisionOf = { confirm: 'confirmed', discard: 'discarded' } as const;

export async function decideDepartures(
  deps: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  decision: { status: 'confirmed' | 'discarded'; actor: string },
): Promise<Decision> {
  if (!uuidPattern.test(id)) throw new ApiError('not_found', { detail: `no full sync ${id}` });
  return deps.db.transaction(async (tx) => {
    await lockInstitution(tx, institutionId, InstitutionLock.roster);
    const sync = await lockFullSync(tx, institutionId, id);
    if (!sync) throw new ApiError('not_found', { detail: `no full sync ${id}` });
    if (sync.status !== 'held') {
      throw new ApiError('conflict', {
        detail: `only held departures can be ${decision.status}; this sync is ${sync.status}`,
      });
    }
    const now = deps.clock.now();
    const departed =
      decision.status === 'confirmed'
        ? await applyDepartures(tx, institutionId, sync.id, now, sync.finished_at)
        : 0;
    await markDecided(tx, sync.id, { status: decision.status, at: now, by: decision.actor });
    await appendOperatorAudit(tx, {
      institutionId,
      actor: decision.actor,
      action: decision.status === 'confirmed' ? 'departures.confirm' : 'departures.discard',
      details: { full_sync_id: sync.id, sync_id: sync.sync_id, departed },
    });
    return { id: sync.id, sync_id: sync.sync_id, status: decision.status, departed };
  });
}

/** The functions above bound to a database and clock, under the names every caller uses. */
