// Escalation of crisis requests nobody picked up (docs/notifications.md, "Escalation"): a crisis
// request not acknowledged (assigned, replied to or moved out of New) within its institution's
// window escalates once: an email to the escalation list through the notifications outbox, an
// entry in its timeline (which the help-request audit shows), and a banner on every console page
// of the institution until someone picks it up. The worker (src/workers/escalation.ts) runs
// `escalateRound`; everything of one escalation is written by one statement (./queries.ts).
import type { Queryable } from '../../db/db.ts';
import type { EscalationRound, OpenEscalation } from './model.ts';
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

/** The banner's requests: the oldest `limit` escalated crisis requests still waiting, with their count. */
export async function openEscalations(
  db: Queryable,
  institutionId: string,
  limit = 5,
): Promise<{ total: number; requests: OpenEscalation[] }> {
  const rows = await selectOpenEscalations(db, institutionId, limit);
  return { total: rows[0]?.total ?? 0, requests: rows };
}
