// A roster push as an institution's SIS sends it: POST /api/sis/sync with the tenant's own
// secret, into the tenant's cohort.
import type { LightMyRequestResponse } from 'fastify';
import { namedKeys, recordFullSyncPage } from '../../src/domain/departures/departures.ts';
import type { SeededTenant, TestContext } from './app.ts';

/** Pushes `body` (students, and sync_id or full_sync when given) to the tenant's cohort. */
export function pushRoster(
  ctx: TestContext,
  tenant: SeededTenant,
  body: { students: unknown[]; [field: string]: unknown },
): Promise<LightMyRequestResponse> {
  return ctx.request({
    method: 'POST',
    url: '/api/sis/sync',
    token: tenant.rosterSecret,
    body: { cohort_id: tenant.cohortId, ...body },
  });
}

/** Pushes `body` (programs, campuses, units, terms, enrolments…) to the tenant's enrolments feed. */
export function pushEnrolments(
  ctx: TestContext,
  tenant: SeededTenant,
  body: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  return ctx.request({
    method: 'POST',
    url: '/api/sis/enrolments',
    token: tenant.rosterSecret,
    body: { institution: tenant.slug, ...body },
  });
}

/**
 * A final full-sync page (sync `nightly`) naming nobody, recorded as the SIS feed records it with
 * a threshold of 10%: every student of the cohort would depart, so a cohort of any size is held.
 */
export function recordEmptyFinalPage(ctx: TestContext, tenant: SeededTenant) {
  return ctx.db.transaction((tx) =>
    recordFullSyncPage(
      tx,
      {
        institutionId: tenant.institutionId,
        cohortId: tenant.cohortId,
        syncId: 'nightly',
        finalPage: true,
        keys: namedKeys([]),
        now: new Date(),
      },
      0.1,
    ),
  );
}

/** An institution's listing through the admin API (`what`: students, enrolments, ...), up to 1000 rows. */
export async function listed(ctx: TestContext, slug: string, what: string) {
  return (await ctx.admin('GET', `/admin/v1/institutions/${slug}/${what}?limit=1000`)).json().items;
}

/** The SIS ids of listed students, sorted. */
export const studentIdsOf = (students: { student_id_ext: string }[]) =>
  students.map((s) => s.student_id_ext).sort();
