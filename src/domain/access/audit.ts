// The admin audit: every change made through the admin API (by the operator's token, an
// operator's session, or a person's session), with who, when and which session. Append-only:
// the database refuses updates and deletes. It is written once the change has succeeded, so
// a refused or failed request leaves no entry; the help-desk timeline and the operator audit
// keep their own, more detailed, records of the changes they cover.
// The SQL is in ./queries.ts, the types in ./model.ts.
import type { Db } from '../../db/db.ts';
import type { Deps } from '../deps.ts';
import type { AdminAuditEntry, AdminChange, SubjectKind } from './model.ts';
import { insertAdminAudit, selectAdminAudit, selectAuditSubject } from './queries.ts';

export type { AdminAuditEntry, AdminChange, SubjectKind } from './model.ts';

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

/** Records one change (written once the change has succeeded). */
export async function recordAdminChange(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  change: AdminChange,
): Promise<void> {
  const { caller } = change;
  const actorId =
    caller.kind === 'person'
      ? caller.personId
      : caller.kind === 'student'
        ? caller.studentId
        : (caller.personId ?? null);
  await insertAdminAudit(db, {
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
  });
}

/** The words naming a thing of the institution (undefined when there is none such). */
export async function auditSubjectOf(
  db: Db,
  institutionId: string,
  kind: SubjectKind,
  id: string,
): Promise<string | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  return selectAuditSubject(db, institutionId, kind, id);
}

/** Newest first; `before` is the last entry's id of the previous page. */
export function listAdminAuditEntries(
  db: Db,
  institutionId: string,
  page: { limit: number; before?: string },
): Promise<AdminAuditEntry[]> {
  return selectAdminAudit(db, institutionId, page);
}
