// The audit area's SQL: the operator audit (./operator-audit.ts, its one writer) and the pages
// of the trails admins read (./trail.ts), one indexed query per page.
import type { Queryable } from '../../db/db.ts';
import type { CursorKey } from '../../lib/cursor.ts';
import type { AdminAuditItem, HelpRequestAuditItem, OperatorAction, OperatorAuditEntry } from './model.ts';

/** Appends one operator audit entry; `details` is JSON text. */
export async function insertOperatorAudit(
  tx: Queryable,
  entry: { institutionId: string; actor: string; action: OperatorAction; details: string },
): Promise<void> {
  await tx.query(
    'INSERT INTO operator_audit (institution_id, actor, action, details) VALUES ($1, $2, $3, $4::jsonb)',
    [entry.institutionId, entry.actor, entry.action, entry.details],
  );
}

/** The institution's operator audit, newest first (at most 1000). */
export async function selectOperatorAudit(
  q: Queryable,
  institutionId: string,
): Promise<OperatorAuditEntry[]> {
  const { rows } = await q.query<OperatorAuditEntry>(
    `SELECT id, actor, action, details, at FROM operator_audit WHERE institution_id = $1
     ORDER BY at DESC, id LIMIT 1000`,
    [institutionId],
  );
  return rows;
}

interface PageOf {
  institutionId: string;
  /** ISO instants, or null for no bound. */
  from: string | null;
  to: string | null;
  after: CursorKey | undefined;
  /** Rows to read (a page and one more, to know whether another follows). */
  limit: number;
}

/**
 * The parameters every trail page ends with, in this order: from, to, the cursor's two parts (null
 * on the first page) and the limit.
 */
const windowParams = ({ from, to, after, limit }: PageOf) => [
  from,
  to,
  after?.[0] ?? null,
  after?.[1] ?? null,
  limit,
];

/** Admin audit entries, newest first, keyset-paged. */
export async function selectAdminAudit(
  db: Queryable,
  page: PageOf & { actorKind: string | null; actorId: string | null },
): Promise<(AdminAuditItem & { sort_key: CursorKey })[]> {
  const { rows } = await db.query<AdminAuditItem & { sort_key: CursorKey }>(
    `SELECT id, actor_kind, actor_id, actor, session_id, action, target, status, request_id, at, subject,
            json_build_array(at, id) AS sort_key
     FROM admin_audit
     WHERE institution_id = $1
       AND ($2::text IS NULL OR actor_kind = $2::text)
       AND ($3::uuid IS NULL OR actor_id = $3::uuid)
       AND ($4::timestamptz IS NULL OR at >= $4::timestamptz)
       AND ($5::timestamptz IS NULL OR at < $5::timestamptz)
       AND ($6::timestamptz IS NULL OR (at, id) < ($6::timestamptz, $7::uuid))
     ORDER BY at DESC, id DESC LIMIT $8`,
    [page.institutionId, page.actorKind, page.actorId, ...windowParams(page)],
  );
  return rows;
}

/** Help-request timeline entries of the institution, newest first, keyset-paged. */
export async function selectHelpRequestAudit(
  db: Queryable,
  page: PageOf & { actor: string | null },
): Promise<(HelpRequestAuditItem & { sort_key: CursorKey })[]> {
  const { rows } = await db.query<HelpRequestAuditItem & { sort_key: CursorKey }>(
    `SELECT t.id, t.seq::int AS seq, t.help_request_id, r.summary, t.kind, t.action, t.actor, t.origin,
            t.from_status, t.to_status, t.assigned_to, t.created_at,
            json_build_array(t.created_at, t.seq) AS sort_key
     FROM help_request_timeline t
     JOIN help_requests r ON r.id = t.help_request_id
     WHERE t.institution_id = $1
       AND ($2::text IS NULL OR t.actor = $2::text)
       AND ($3::timestamptz IS NULL OR t.created_at >= $3::timestamptz)
       AND ($4::timestamptz IS NULL OR t.created_at < $4::timestamptz)
       AND ($5::timestamptz IS NULL OR (t.created_at, t.seq) < ($5::timestamptz, $6::bigint))
     ORDER BY t.created_at DESC, t.seq DESC LIMIT $7`,
    [page.institutionId, page.actor, ...windowParams(page)],
  );
  return rows;
}

/** Everyone of the institution, removed people included, by name. */
export async function selectAuditPeople(
  db: Queryable,
  institutionId: string,
): Promise<{ id: string; name: string; email: string; removed: boolean }[]> {
  const { rows } = await db.query<{ id: string; name: string; email: string; removed: boolean }>(
    `SELECT id, name, email, removed_at IS NOT NULL AS removed FROM people
     WHERE institution_id = $1 ORDER BY lower(name), email, id`,
    [institutionId],
  );
  return rows;
}
