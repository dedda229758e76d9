// The admin audit: every change made through the admin API (by the operator's token, an
// operator's session, or a person's session), with who, when and which session. Append-only:
// the database refuses updates and deletes. It is written once the change has succeeded, so
// a refused or failed request leaves no entry; the help-desk timeline and the operator audit
// keep their own, more detailed, records of the changes they cover.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Caller } from './policy.ts';
import { insertAdminAudit, selectAdminAuditPage, selectSubject } from './queries.ts';

export interface AdminChange {
  caller: Caller;
  institutionId: string | null;
  /** The route, e.g. `POST /admin/v1/institutions/:slug/people`. */
  action: string;
  /** The path acted on. */
  target: string;
  status: number;
  requestId: string;
  /** What was acted on, in words (subjectOf), when the change names something. */
  subject?: string | null;
}

/** The kinds of thing an admin change can name, and where each one's words are. */
export type SubjectKind = 'webhook' | 'person' | 'cohort' | 'calendar_feed';

/**
 * What a route acts on: the thing its `:id` names (read before the change, so a deletion still
 * names it), or for a route that creates one, the field of the body that names it.
 */
export function subjectOfRoute(route: string): { kind: SubjectKind } | { field: string } | undefined {
  const path = route.replace(/^\/admin\/v1\/institutions\/:slug/, '').replace(/^\/console\/:slug/, '');
  if (/^\/(webhook-endpoints|webhooks)\/:id/.test(path)) return { kind: 'webhook' };
  if (/^\/people\/:id/.test(path)) return { kind: 'person' };
  if (/^\/cohorts\/:id/.test(path)) return { kind: 'cohort' };
  if (/^\/calendar-feeds\/:id/.test(path)) return { kind: 'calendar_feed' };
  if (/^\/(webhook-endpoints|webhooks|calendar-feeds)$/.test(path)) return { field: 'url' };
  if (/^\/(people|cohorts)$/.test(path) || route === '/admin/v1/institutions' || route === '/console')
    return { field: 'name' };
  return undefined;
}

export type { AdminAuditEntry } from './queries.ts';

export function createAdminAudit(db: Db, clock: Clock) {
  return {
    async record(change: AdminChange): Promise<void> {
      const { caller } = change;
      const actorId =
        caller.kind === 'person'
          ? caller.personId
          : caller.kind === 'student'
            ? caller.studentId
            : (caller.personId ?? null);
      await insertAdminAudit(
        db,
        JSON.stringify({
          institution_id: change.institutionId,
          actor_kind: caller.kind,
          actor_id: actorId,
          actor: caller.actor,
          session_id: caller.sessionId ?? null,
          action: change.action,
          target: change.target.slice(0, 500),
          status: change.status,
          request_id: change.requestId,
          at: clock.now().toISOString(),
          subject: change.subject ? change.subject.slice(0, 500) : null,
        }),
      );
    },

    /** The words naming a thing of the institution (undefined when there is none such). */
    async subjectOf(institutionId: string, kind: SubjectKind, id: string): Promise<string | undefined> {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
      return (await selectSubject(db, institutionId, kind, id)) ?? undefined;
    },

    /** Newest first; `before` is the last entry's id of the previous page. */
    async list(institutionId: string, page: { limit: number; before?: string }) {
      return selectAdminAuditPage(db, institutionId, page.limit, page.before ?? null);
    },
  };
}

export type AdminAudit = ReturnType<typeof createAdminAudit>;
