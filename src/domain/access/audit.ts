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
        `INSERT INTO admin_audit (institution_id, actor_kind, actor_id, actor, session_id, action, target, status, request_id, at)
         SELECT * FROM json_to_record($1::json) AS r(
           institution_id uuid, actor_kind text, actor_id uuid, actor text, session_id uuid,
           action text, target text, status integer, request_id text, at timestamptz)`,
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
          }),
        ],
      );
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
