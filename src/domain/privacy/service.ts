// The privacy area bound to its dependencies: exports, erasures, retention settings and the
// access log, for the admin API and the console alike (docs/privacy.md).
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Caller } from '../access/policy.ts';
import { type AccessWhat, listAccess, recordAccess, seenBy } from './access-log.ts';
import { eraseStudent } from './erasure.ts';
import { exportChunks, exportDocument, requireStudent, type StudentLookup } from './export.ts';
import { erasurePreview } from './queries/export.ts';
import { lastRetentionRun, recentErasures, selectSettings, upsertSettings } from './queries/retention.ts';
import { checkSettings, periodRules, periodsOf, retentionKinds } from './retention-periods.ts';

export function createPrivacyService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    findStudent: (institutionId: string, by: StudentLookup) => requireStudent(db, institutionId, by),
    exportChunks: (
      institution: { id: string; slug: string },
      student: Awaited<ReturnType<typeof requireStudent>>,
    ) => exportChunks(db, institution, student, clock.now()),
    exportDocument: (
      institution: { id: string; slug: string },
      student: Awaited<ReturnType<typeof requireStudent>>,
    ) => exportDocument(db, institution, student, clock.now()),
    /** What an erasure of the student removes (404 when unknown). */
    async preview(institutionId: string, studentId: string) {
      const student = await requireStudent(db, institutionId, { id: studentId });
      return { student, removes: await erasurePreview(db, institutionId, student.id) };
    },
    erase: (institutionId: string, studentId: string, erasedBy: string) =>
      eraseStudent(deps, institutionId, studentId, erasedBy),
    recentErasures: (institutionId: string, limit = 20) => recentErasures(db, institutionId, limit),

    /** The periods in force with their defaults, floors and ceilings. */
    async retention(institutionId: string) {
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
    },
    async setRetention(institutionId: string, input: Record<string, unknown>) {
      await upsertSettings(db, institutionId, checkSettings(input), clock.now());
    },
    lastRetentionRun: (institutionId: string) => lastRetentionRun(db, institutionId),

    recordAccess: (
      caller: Caller,
      institutionId: string,
      what: AccessWhat,
      about: { helpRequestId?: string; studentId?: string },
      surface: 'console' | 'api',
    ) => recordAccess(db, { caller, institutionId, what, ...about, surface, at: clock.now() }),
    seenBy: (institutionId: string, helpRequestId: string) => seenBy(db, institutionId, helpRequestId),
    accessLog: (institutionId: string, page: { limit: number; before?: number }) =>
      listAccess(db, institutionId, page),
  };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
