// The admin audit: every change made through the admin API (by the operator's token, an
// operator's session, or a person's session), with who, when and which session. Append-only:
// the database refuses updates and deletes. It is written once the change has succeeded, so
// a refused or failed request leaves no entry; the help-desk timeline and the operator audit
// keep their own, more detailed, records of the changes they cover.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Caller } from './policy.ts';

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

export interface AdminAuditEntry {
  id: string;
  actor_kind: string;
  actor_id: string | null;
  actor: string;
  session_id: string | null;
  action: string;
  target: string | null;
  status: number;
  request_id: string | null;
  at: Date;
}

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
      await db.query(
        `INSERT INTO admin_audit (institution_id, actor_kind, actor_id, actor, session_id, action, target, status,
                                  request_id, at, subject)
         SELECT * FROM json_to_record($1::json) AS r(
           institution_id uuid, actor_kind text, actor_id uuid, actor text, session_id uuid,
           action text, target text, status integer, request_id text, at timestamptz, subject text)`,
        [
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
        ],
      );
    },

    /** The words naming a thing of the institution (undefined when there is none such). */
    async subjectOf(institutionId: string, kind: SubjectKind, id: string): Promise<string | undefined> {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
      const { rows } = await db.query<{ subject: string | null }>(
        `SELECT CASE $2::text
                  WHEN 'webhook' THEN (SELECT url FROM webhook_endpoints WHERE institution_id = $1 AND id = $3::uuid)
                  WHEN 'person' THEN (SELECT name FROM people WHERE institution_id = $1 AND id = $3::uuid)
                  WHEN 'cohort' THEN (SELECT name FROM cohorts WHERE institution_id = $1 AND id = $3::uuid)
                  WHEN 'calendar_feed' THEN (SELECT COALESCE(name, url) FROM calendar_feeds
                                             WHERE institution_id = $1 AND id = $3::uuid)
                END AS subject`,
        [institutionId, kind, id],
      );
      return rows[0]?.subject ?? undefined;
    },

    /** Newest first; `before` is the last entry's id of the previous page. */
    async list(institutionId: string, page: { limit: number; before?: string }) {
      const { rows } = await db.query<AdminAuditEntry>(
        `SELECT id, actor_kind, actor_id, actor, session_id, action, target, status, request_id, at
         FROM admin_audit a
         WHERE institution_id = $1
           AND ($3::uuid IS NULL OR (a.at, a.id) < (SELECT at, id FROM admin_audit WHERE id = $3::uuid))
         ORDER BY at DESC, id DESC LIMIT $2`,
        [institutionId, page.limit, page.before ?? null],
      );
      return rows;
    },
  };
}

export type AdminAudit = ReturnType<typeof createAdminAudit>;
