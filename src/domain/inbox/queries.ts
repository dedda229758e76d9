// The inbox area's SQL, one function per statement: an institution's response targets and
// escalation window, its escalation list, the escalation of crisis requests nobody acknowledged,
// and the escalations still waiting to be picked up.
import type { Queryable } from '../../db/db.ts';
import type { Priority } from '../helpdesk/rules.ts';
import { replaceSettingHolders, staffSettingsSql } from '../notifications/queries.ts';
import type { InboxSettings, OpenEscalation } from './model.ts';

interface SettingsRow {
  target_crisis_minutes: number;
  target_high_minutes: number;
  target_normal_minutes: number;
  target_low_minutes: number;
  escalation_minutes: number;
}

const toSettings = (row: SettingsRow): InboxSettings => ({
  targets: {
    crisis: row.target_crisis_minutes,
    high: row.target_high_minutes,
    normal: row.target_normal_minutes,
    low: row.target_low_minutes,
  },
  escalation_minutes: row.escalation_minutes,
});

/** The institution's settings, or undefined when its admins never set them (the defaults apply). */
export async function selectSettings(
  db: Queryable,
  institutionId: string,
): Promise<InboxSettings | undefined> {
  const { rows } = await db.query<SettingsRow>(
    `SELECT target_crisis_minutes, target_high_minutes, target_normal_minutes, target_low_minutes,
       escalation_minutes FROM inbox_settings WHERE institution_id = $1`,
    [institutionId],
  );
  return rows[0] ? toSettings(rows[0]) : undefined;
}

/** Writes the institution's settings whole. */
export async function upsertSettings(
  db: Queryable,
  institutionId: string,
  settings: InboxSettings,
  now: Date,
): Promise<void> {
  const t: Record<Priority, number> = settings.targets;
  await db.query(
    `INSERT INTO inbox_settings (institution_id, target_crisis_minutes, target_high_minutes,
       target_normal_minutes, target_low_minutes, escalation_minutes, updated_at)
     SELECT $1, r.crisis, r.high, r.normal, r.low, r.escalation, $3
     FROM json_to_record($2::json) AS r(crisis integer, high integer, normal integer, low integer, escalation integer)
     ON CONFLICT (institution_id) DO UPDATE SET target_crisis_minutes = excluded.target_crisis_minutes,
       target_high_minutes = excluded.target_high_minutes, target_normal_minutes = excluded.target_normal_minutes,
       target_low_minutes = excluded.target_low_minutes, escalation_minutes = excluded.escalation_minutes,
       updated_at = excluded.updated_at`,
    [institutionId, JSON.stringify({ ...t, escalation: settings.escalation_minutes }), now],
  );
}

/** A current staff member or admin, and whether they are on the escalation list. */
export interface EscalationCandidate {
  person_id: string;
  name: string;
  email: string;
  roles: string[];
  escalation: boolean;
}

/** Every current staff member and admin of the institution, by name, with their place on the list. */
export async function selectEscalationCandidates(
  db: Queryable,
  institutionId: string,
): Promise<EscalationCandidate[]> {
  const { rows } = await db.query<EscalationCandidate>(
    staffSettingsSql('coalesce(s.escalation, false) AS escalation'),
    [institutionId],
  );
  return rows;
}

/** Makes exactly these people (current staff and admins, checked by the caller) the escalation list. */
export const replaceEscalationList = (db: Queryable, institutionId: string, personIds: string[], now: Date) =>
  replaceSettingHolders(db, 'escalation', institutionId, personIds, now);

/**
 * Escalates up to `limit` crisis requests that nobody acknowledged (no first response: not
 * assigned, replied to or moved out of New) within their institution's window, in one statement:
 * claims them (FOR UPDATE SKIP LOCKED: any number of workers scan at once, and a staff change in
 * flight on a request makes it wait for the next round), records the escalation (its primary key
 * refuses a second one: ON CONFLICT DO NOTHING, and only what was inserted goes on), queues an
 * email to each person on the escalation list (or, with no list, each current admin) in the
 * notifications outbox, and appends the timeline entry. Archived institutions wait.
 *
 * Cost: the candidates are read from help_requests_unacknowledged_crisis_idx, a partial index
 * holding only unacknowledged crisis requests; the rest is per escalated request.
 */
export async function escalateDue(
  db: Queryable,
  request: { now: Date; limit: number; institutionIds: string[] | null },
): Promise<{ help_request_id: string; institution_id: string; recipients: number }[]> {
  const { rows } = await db.query<{ help_request_id: string; institution_id: string; recipients: number }>(
    `WITH due AS (
       SELECT h.id, h.institution_id, h.version, coalesce(s.escalation_minutes, 15) AS window_minutes
       FROM help_requests h
       LEFT JOIN inbox_settings s ON s.institution_id = h.institution_id
       WHERE h.priority = 'crisis' AND h.first_response_at IS NULL
         AND h.created_at <= $1::timestamptz - make_interval(mins => coalesce(s.escalation_minutes, 15))
         AND ($3::uuid[] IS NULL OR h.institution_id = ANY ($3::uuid[]))
         AND NOT EXISTS (SELECT 1 FROM help_request_escalations e WHERE e.help_request_id = h.id)
         AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = h.institution_id AND i.archived_at IS NOT NULL)
       ORDER BY h.created_at
       LIMIT $2
       FOR UPDATE OF h SKIP LOCKED
     ),
     staff AS (
       SELECT p.id AS person_id, p.institution_id, p.roles, coalesce(ns.escalation, false) AS listed
       FROM people p LEFT JOIN notification_settings ns ON ns.person_id = p.id
       WHERE p.institution_id IN (SELECT institution_id FROM due) AND p.removed_at IS NULL
         AND p.roles && ARRAY['admin', 'staff']
     ),
     has_list AS (SELECT DISTINCT institution_id FROM staff WHERE listed),
     told AS (
       SELECT st.institution_id, st.person_id FROM staff st
       WHERE st.listed OR ('admin' = ANY (st.roles)
         AND NOT EXISTS (SELECT 1 FROM has_list l WHERE l.institution_id = st.institution_id))
     ),
     escalated AS (
       INSERT INTO help_request_escalations (help_request_id, institution_id, window_minutes, to_admins,
         recipients, escalated_at)
       SELECT d.id, d.institution_id, d.window_minutes,
         NOT EXISTS (SELECT 1 FROM has_list l WHERE l.institution_id = d.institution_id),
         (SELECT count(*) FROM told t WHERE t.institution_id = d.institution_id), $1
       FROM due d
       ON CONFLICT (help_request_id) DO NOTHING
       RETURNING help_request_id, institution_id, window_minutes, to_admins, recipients
     ),
     emails AS (
       INSERT INTO notifications (institution_id, person_id, help_request_id, reason, next_attempt_at, created_at)
       SELECT e.institution_id, t.person_id, e.help_request_id, 'escalation', $1, $1
       FROM escalated e JOIN told t ON t.institution_id = e.institution_id
     ),
     entries AS (
       INSERT INTO help_request_timeline (institution_id, help_request_id, kind, action, actor, origin, note,
         version, created_at)
       SELECT e.institution_id, e.help_request_id, 'audit', 'escalated', NULL, 'platform',
         format('Not acknowledged within %s minutes of being raised: escalated by email to %s (%s %s)',
           e.window_minutes,
           CASE WHEN e.to_admins THEN 'every admin, as no escalation list is chosen' ELSE 'the escalation list' END,
           e.recipients, CASE WHEN e.recipients = 1 THEN 'person' ELSE 'people' END),
         d.version, $1
       FROM escalated e JOIN due d ON d.id = e.help_request_id
       ORDER BY e.help_request_id
     )
     SELECT help_request_id, institution_id, recipients FROM escalated`,
    [request.now, request.limit, request.institutionIds],
  );
  return rows;
}

/**
 * The institution's escalated crisis requests nobody has picked up yet, oldest first, at most
 * `limit` of them: the banner shows the first few and counts the rest up to this bound, so a
 * long backlog costs no more than a short one. Read from the partial index of unacknowledged
 * crisis requests in its order (institution, raised), so it costs next to nothing on every
 * console page.
 */
export async function selectOpenEscalations(
  db: Queryable,
  institutionId: string,
  limit: number,
): Promise<OpenEscalation[]> {
  const { rows } = await db.query<OpenEscalation>(
    // A walk of the partial index in its order, each request's escalation looked up by key as
    // it comes, stopping at `limit`: a join instead is planned as a hash of every escalation and
    // a sort of every waiting request (the planner expects two), whatever the limit.
    `SELECT help_request_id, created_at, escalated_at FROM (
       SELECT h.id AS help_request_id, h.created_at,
         (SELECT e.escalated_at FROM help_request_escalations e WHERE e.help_request_id = h.id) AS escalated_at
       FROM help_requests h
       WHERE h.institution_id = $1 AND h.priority = 'crisis' AND h.first_response_at IS NULL
       ORDER BY h.created_at, h.id) AS waiting
     WHERE escalated_at IS NOT NULL
     ORDER BY created_at, help_request_id
     LIMIT $2`,
    [institutionId, limit],
  );
  return rows;
}

/**
 * The escalation worker's queue for /metrics: crisis requests whose window has passed with no
 * acknowledgement and no escalation yet, and how long the oldest has waited past its window.
 * Read at scrape time from the same partial index as escalateDue.
 */
export async function selectEscalationQueue(
  db: Queryable,
  now: Date,
): Promise<{ depth: number; lagSeconds: number }> {
  const { rows } = await db.query<{ depth: number; lag_seconds: number }>(
    `SELECT count(*)::int AS depth,
       COALESCE(EXTRACT(EPOCH FROM ($1::timestamptz
         - min(h.created_at + make_interval(mins => coalesce(s.escalation_minutes, 15))))), 0)::float8 AS lag_seconds
     FROM help_requests h
     LEFT JOIN inbox_settings s ON s.institution_id = h.institution_id
     WHERE h.priority = 'crisis' AND h.first_response_at IS NULL
       AND h.created_at <= $1::timestamptz - make_interval(mins => coalesce(s.escalation_minutes, 15))
       AND NOT EXISTS (SELECT 1 FROM help_request_escalations e WHERE e.help_request_id = h.id)
       AND NOT EXISTS (SELECT 1 FROM institutions i WHERE i.id = h.institution_id AND i.archived_at IS NOT NULL)`,
    [now],
  );
  return { depth: rows[0].depth, lagSeconds: rows[0].lag_seconds };
}
