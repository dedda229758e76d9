// Escalation of crisis requests nobody picked up (docs/notifications.md, "Escalation"): a crisis
// request not acknowledged (assigned, replied to or moved out of New) within its institution's
// window escalates once: an email to the escalation list through the notifications outbox, an
// entry in its timeline (which the help-request audit shows), and a banner on every console page
// of the institution until someone picks it up. The worker (src/workers/escalation.ts) runs
// `escalateRound`; everything of one escalation is written by one statement (./queries.ts).
import type { Queryable } from '../../db/db.ts';
import { ESCALATIONS_COUNTED, type EscalationRound, type OpenEscalations } from './model.ts';
import { escalateDue, selectOpenEscalations } from './queries.ts';

/** Escalates what is due now, at most `limit` requests; how many it claimed and escalated. */
export async function escalateRound(
  deps: { db: Queryable; now: Date },
  options: { limit: number; institutionIds?: string[] | null },
): Promise<EscalationRound & { escalations: { help_request_id: string; institution_id: string }[] }> {
  const rows = await escalateDue(deps.db, {
    now: deps.now,
    limit: options.limit,
    institutionIds: options.institutionIds ?? null,
  });
  return { claimed: rows.length, escalated: rows.length, escalations: rows };
}

/**
 * The banner's requests: the oldest `limit` escalated crisis requests still waiting, with their
 * count up to ESCALATIONS_COUNTED (one read of at most that many rows, however long the backlog).
 */
export async function openEscalations(
  db: Queryable,
  institutionId: string,
  limit = 5,
): Promise<OpenEscalations> {
  const rows = await selectOpenEscalations(db, institutionId, ESCALATIONS_COUNTED + 1);
  const more = rows.length > ESCALATIONS_COUNTED;
  return { total: more ? ESCALATIONS_COUNTED : rows.length, more, requests: rows.slice(0, limit) };
}
