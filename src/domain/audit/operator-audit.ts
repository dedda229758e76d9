// The operator audit: operator actions on an institution's data (campus merges, departure
// decisions), append-only (the database refuses updates and deletes, migration 0007). This
// module is its one writer and its one reader.
import type { Queryable } from '../../db/db.ts';
import { storableJson } from '../../lib/text.ts';
import type { OperatorAction, OperatorAuditEntry } from './model.ts';
import { insertOperatorAudit, selectOperatorAudit } from './queries.ts';

export type { OperatorAction, OperatorAuditEntry } from './model.ts';

/** Appends one entry. Call it with the transaction of the action it records. */
export async function appendOperatorAudit(
  tx: Queryable,
  entry: { institutionId: string; actor: string; action: OperatorAction; details: Record<string, unknown> },
): Promise<void> {
  await insertOperatorAudit(tx, { ...entry, details: storableJson(entry.details) });
}

/** The institution's entries, newest first (at most 1000). */
export async function readOperatorAudit(q: Queryable, institutionId: string): Promise<OperatorAuditEntry[]> {
  return selectOperatorAudit(q, institutionId);
}
