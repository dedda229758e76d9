// An institution's retention periods as the admin API and the console show and change them,
// and what the retention runs and erasures did (docs/privacy.md, "How long"). The rules of a
// period are in ./retention-periods.ts, the SQL in ./queries/retention.ts.
import type { Queryable } from '../../db/db.ts';
import type { Deps } from '../deps.ts';
import { lastRetentionRun, recentErasures, selectSettings, upsertSettings } from './queries/retention.ts';
import { checkSettings, periodRules, periodsOf, retentionKinds } from './retention-periods.ts';

/** The periods in force with their defaults, floors and ceilings. */
export async function retentionPeriods(db: Queryable, institutionId: string) {
  const stored = await selectSettings(db, institutionId);
  const periods = periodsOf(stored);
  return Object.fromEntries(
    retentionKinds.map((kind) => [
      `${kind}_days`,
      {
        days: periods[kind],
        set: stored?.[kind] != null,
        default: periodRules[kind].default,
        min: periodRules[kind].min,
        max: periodRules[kind].max,
        what: periodRules[kind].what,
      },
    ]),
  );
}

/** Changes periods (a period outside its floor and ceiling is 400 naming it; null: the default). */
export async function setRetentionPeriods(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  input: Record<string, unknown>,
): Promise<void> {
  await upsertSettings(db, institutionId, checkSettings(input), clock.now());
}

/** The institution's latest retention run (the health page). */
export function latestRetentionRun(db: Queryable, institutionId: string) {
  return lastRetentionRun(db, institutionId);
}

/** The institution's latest erasures, newest first (the privacy page). */
export function listRecentErasures(db: Queryable, institutionId: string, limit = 20) {
  return recentErasures(db, institutionId, limit);
}
