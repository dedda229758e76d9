// Who looked (FERPA's record of disclosures): each opening of a help request, a student's page or
// a student's export is one row (who, when, what; never what the page showed), written by one
// INSERT beside the page's own reads. Shown as "seen by" on a request's page and on the audit
// page; kept for the access-log retention period; an erasure keeps the row but forgets the student.
import type { Queryable } from '../../db/db.ts';
import type { Caller } from '../access/policy.ts';
import type { Deps } from '../deps.ts';
import { type AccessWhat, insertAccess, selectAccessPage, selectSeenBy } from './queries/access-log.ts';

export type { AccessEntry, AccessWhat, SeenBy } from './queries/access-log.ts';

/**
 * Records one view, run beside the page's own reads: a request or student that is not the
 * institution's (the page answers 404) records nothing. Students reading their own requests are
 * not recorded (they are the subject).
 */
export async function recordAccess(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  caller: Caller,
  institutionId: string,
  what: AccessWhat,
  about: { helpRequestId?: string; studentId?: string },
  surface: 'console' | 'api',
): Promise<void> {
  if (caller.kind === 'student') return;
  await insertAccess(
    db,
    JSON.stringify({
      institution_id: institutionId,
      actor_kind: caller.kind,
      actor_id: caller.kind === 'person' ? caller.personId : (caller.personId ?? null),
      actor: caller.actor,
      what,
      help_request_id: about.helpRequestId ?? null,
      student_id: about.studentId ?? null,
      surface,
      at: clock.now().toISOString(),
    }),
  );
}

/** Records the opening of a help request (its page, or the API's read of it). */
export function recordRequestView(
  deps: Pick<Deps, 'db' | 'clock'>,
  caller: Caller,
  institutionId: string,
  helpRequestId: string,
  surface: 'console' | 'api',
): Promise<void> {
  return recordAccess(deps, caller, institutionId, 'help_request', { helpRequestId }, surface);
}

/** Who opened a request, most recent first (one row per person). */
export async function seenBy(db: Queryable, institutionId: string, helpRequestId: string, limit = 20) {
  return selectSeenBy(db, institutionId, helpRequestId, limit);
}

/** The institution's access log, newest first; `before` is the last id of the previous page. */
export async function listAccess(
  db: Queryable,
  institutionId: string,
  page: { limit: number; before?: number },
) {
  return selectAccessPage(db, institutionId, page.limit, page.before ?? null);
}
