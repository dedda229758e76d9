// Transaction-level advisory locks. Writers of one institution's roster (pushes, merges,
// departures) take the institution's lock of each kind they touch, always in the order of
// `InstitutionLock` below, so they serialise without deadlocking and other institutions
// proceed in parallel.
import type { Queryable } from './db.ts';

/** Single-key locks. */
export const GlobalLock = {
  migrations: 727_274_001,
  operatorCredentials: 727_274_002,
} as const;

/** Two-key locks: (class, hash of the institution id). */
export const InstitutionLock = {
  /** Students of the institution (roster pushes, departures, campus merges). */
  roster: 727_274_002,
  /** Programs, campuses, terms, units and enrolments (enrolments pushes, campus merges). */
  taxonomy: 727_274_003,
  /** The institution's calendar feeds while one is added (the cap on feeds per institution). */
  calendarFeeds: 727_274_004,
} as const;

/** Takes the institution's locks of the given classes, in the canonical order. */
export async function lockInstitution(
  tx: Queryable,
  institutionId: string,
  ...classes: (typeof InstitutionLock)[keyof typeof InstitutionLock][]
): Promise<void> {
  for (const lockClass of [...classes].sort((a, b) => a - b)) {
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lockClass, institutionId]);
  }
}
