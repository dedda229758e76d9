// The admin audit's types: a change as recorded, an entry as read, the things a change can name.
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
  /** What was acted on, in words (auditSubjectOf), when the change names something. */
  subject?: string | null;
}

/** The kinds of thing an admin change can name, and where each one's words are. */
export type SubjectKind = 'webhook' | 'person' | 'cohort' | 'calendar_feed';

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

/** An admin_audit row as written. */
export interface AdminAuditRow {
  institution_id: string | null;
  actor_kind: string;
  actor_id: string | null;
  actor: string;
  session_id: string | null;
  action: string;
  target: string;
  status: number;
  request_id: string;
  at: string;
  subject: string | null;
}
