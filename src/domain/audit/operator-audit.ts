// The operator audit: operator actions on an institution's data (campus merges, departure
// decisions), append-only (the database refuses updates and deletes, migration 0007). This
// module is its one writer and its one reader.
import type { Queryable } from '../../db/db.ts';
import { storableJson } from '../../lib/text.ts';

export type OperatorAction = 'campus.merge' | 'departures.confirm' | 'departures.discard';

export interface OperatorAuditEntry {
  id: string;
  actor: string;
  action: OperatorAction;
  details: Record<string, unknown>;
  at: Date;
}

/** Appends one entry. Call it with the transaction of the action it records. */
export async function appendOperatorAudit(
  tx: Queryable,
  entry: { institutionId: string; actor: string; action: OperatorAction; details: Record<string, unknown> },
): Promise<void> {
  await tx.query(
    'INSERT INTO operator_audit (institution_id, actor, action, details) VALUES ($1, $2, $3, $4::jsonb)',
    [entry.institutionId, entry.actor, entry.action, storableJson(entry.details)],
  );
}

/** The institution's entries, newest first (at most 1000). */
export async function readOperatorAudit(q: Queryable, institutionId: string): Promise<OperatorAuditEntry[]> {
  const { rows } = await q.query<OperatorAuditEntry>(
    `SELECT id, actor, action, details, at FROM operator_audit WHERE institution_id = $1
     ORDER BY at DESC, id LIMIT 1000`,
    [institutionId],
  );
  return rows;
}
