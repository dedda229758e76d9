// Notifications' SQL, one function per statement. The outbox rows themselves are created by the
// `events_notification_fan_out` trigger (migration 0050), never here: these read the settings and
// the outbox, and move an outbox row from pending to done.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../db/db.ts';
import { type QueueDepth, selectQueueDepth } from '../../db/queue-depth.ts';
import type { Reason, Rule } from './email.ts';

/** A staff member or admin of the institution with what they are told. */
export interface PersonSettings {
  person_id: string;
  name: string;
  email: string;
  roles: string[];
  crisis: boolean;
  any_new: boolean;
  assigned: boolean;
}

/**
 * The statement reading every current staff member and admin of institution $1, by name, with
 * `settings`: columns of their notification_settings row `s` (all null when they have none). The
 * settings page and the escalation list (src/domain/inbox/queries.ts) read the same people.
 */
export const staffSettingsSql = (settings: string): string =>
  `SELECT p.id AS person_id, p.name, p.email, p.roles, ${settings}
   FROM people p LEFT JOIN notification_settings s ON s.person_id = p.id
   WHERE p.institution_id = $1 AND p.removed_at IS NULL AND p.roles && ARRAY['admin', 'staff']
   ORDER BY lower(p.name), lower(p.email), p.id`;

const settingsColumns = `coalesce(s.crisis, false) AS crisis, coalesce(s.any_new, false) AS any_new,
  coalesce(s.assigned, false) AS assigned`;

/** Every current staff member and admin of the institution, by name, with their settings. */
export async function selectPeopleSettings(db: Queryable, institutionId: string): Promise<PersonSettings[]> {
  const { rows } = await db.query<PersonSettings>(staffSettingsSql(settingsColumns), [institutionId]);
  return rows;
}

/** One person's settings (all false when they have none), or undefined if not a current person here. */
export async function selectPersonSettings(
  db: Queryable,
  institutionId: string,
  personId: string,
): Promise<PersonSettings | undefined> {
  const { rows } = await db.query<PersonSettings>(
    `SELECT p.id AS person_id, p.name, p.email, p.roles, ${settingsColumns}
     FROM people p LEFT JOIN notification_settings s ON s.person_id = p.id
     WHERE p.id = $2 AND p.institution_id = $1 AND p.removed_at IS NULL`,
    [institutionId, personId],
  );
  return rows[0];
}

/**
 * Makes exactly these people the institution's holders of `setting` (the crisis recipients, or the
 * escalation list of src/domain/inbox/queries.ts), in one statement: they are set, everyone else
 * of the institution unset. The ids must be the institution's current people (checked by the
 * caller in the same transaction).
 */
export async function replaceSettingHolders(
  db: Queryable,
  setting: 'crisis' | 'escalation',
  institutionId: string,
  personIds: string[],
  now: Date,
): Promise<void> {
  await db.query(
    `WITH cleared AS (
       UPDATE notification_settings s SET ${setting} = false, updated_at = $3
       WHERE s.institution_id = $1 AND s.${setting} AND NOT (s.person_id = ANY ($2::uuid[]))
     )
     INSERT INTO notification_settings (person_id, institution_id, ${setting}, updated_at)
     SELECT unnest($2::uuid[]), $1, true, $3
     ON CONFLICT (person_id) DO UPDATE SET ${setting} = true, updated_at = $3
       WHERE notification_settings.${setting} = false`,
    [institutionId, personIds, now],
  );
}

/** Makes exactly these people (current ones, checked by the caller) the crisis recipients. */
export const replaceCrisisRecipients = (
  db: Queryable,
  institutionId: string,
  personIds: string[],
  now: Date,
) => replaceSettingHolders(db, 'crisis', institutionId, personIds, now);

/** Sets a person's own choices (every new request, requests assigned to them). */
export async function upsertOwnSettings(
  db: Queryable,
  institutionId: string,
  personId: string,
  own: { any_new: boolean; assigned: boolean },
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO notification_settings (person_id, institution_id, any_new, assigned, updated_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (person_id) DO UPDATE SET any_new = $3, assigned = $4, updated_at = $5`,
    [personId, institutionId, own.any_new, own.assigned, now],
  );
}

/** An outbox row as the console and the API show it. */
export interface NotificationRow {
  id: string;
  help_request_id: string;
  person_id: string;
  person_name: string;
  person_email: string;
  reason: 'crisis' | 'new' | 'assigned' | 'student_message' | 'escalation';
  state: 'pending' | 'sent' | 'failed' | 'skipped';
  attempts: number;
  next_attempt_at: Date | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/**
 * A newest-first listing of the outbox `n`: `select` (its columns and FROM) where `base`, narrowed
 * to one state when one is asked for ($1 the institution, $2 the limit, $3 the state). Two
 * statements rather than `($3 IS NULL OR state = $3)`, so each reads its own index range.
 */
async function selectNewest<T>(
  db: Queryable,
  select: string,
  base: string,
  institutionId: string,
  options: { limit: number; state?: string },
): Promise<T[]> {
  const { where, params } =
    options.state === undefined
      ? { where: base, params: [institutionId, options.limit] }
      : { where: `${base} AND n.state = $3`, params: [institutionId, options.limit, options.state] };
  const { rows } = await db.query<T>(
    `${select} WHERE ${where} ORDER BY n.created_at DESC, n.id DESC LIMIT $2`,
    params,
  );
  return rows;
}

/** The institution's newest notifications (optionally in one state), newest first. */
export async function selectRecent(
  db: Queryable,
  institutionId: string,
  options: { limit: number; state?: string },
): Promise<NotificationRow[]> {
  // Emails to staff and admins about requests: students' emails and invitations are not listed
  // here (docs/notifications.md), so every row keeps a person and a request.
  return selectNewest<NotificationRow>(
    db,
    `SELECT n.id, n.help_request_id, n.person_id, p.name AS person_name, p.email AS person_email,
       n.reason, n.state, n.attempts,
       CASE WHEN n.state = 'pending' THEN n.next_attempt_at END AS next_attempt_at,
       n.last_error, n.created_at, n.finished_at
     FROM notifications n JOIN people p ON p.id = n.person_id`,
    'n.institution_id = $1 AND n.help_request_id IS NOT NULL',
    institutionId,
    options,
  );
}

/**
 * A row of the whole outbox as the console's Notifications page shows it: emails to staff and
 * admins, to students (a reply, a status change) and invitations, each with its recipient and
 * the rule that made it.
 */
export interface OutboxRecord {
  id: string;
  /** Null for an invitation. */
  help_request_id: string | null;
  recipient: 'person' | 'student';
  /** The person's or the student's name and address (null: a student erased since). */
  name: string | null;
  email: string | null;
  reason: Reason;
  /** Null for a row queued before rules were recorded (migration 0080). */
  rule: Rule | null;
  state: 'pending' | 'sent' | 'failed' | 'skipped';
  attempts: number;
  next_attempt_at: Date | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/**
 * The institution's newest emails of every kind (optionally in one state), newest first: one
 * index range of (institution_id, created_at) as selectRecent, the recipient looked up by key.
 */
export async function selectRecentOutbox(
  db: Queryable,
  institutionId: string,
  options: { limit: number; state?: string },
): Promise<OutboxRecord[]> {
  return selectNewest<OutboxRecord>(
    db,
    `SELECT n.id, n.help_request_id, CASE WHEN n.student_id IS NULL THEN 'person' ELSE 'student' END AS recipient,
       coalesce(p.name, nullif(concat_ws(' ', s.first_name, s.last_name), '')) AS name,
       coalesce(p.email, s.email) AS email, n.reason,
       n.rule,
       n.state, n.attempts, CASE WHEN n.state = 'pending' THEN n.next_attempt_at END AS next_attempt_at,
       n.last_error, n.created_at, n.finished_at
     FROM notifications n LEFT JOIN people p ON p.id = n.person_id LEFT JOIN students s ON s.id = n.student_id`,
    'n.institution_id = $1',
    institutionId,
    options,
  );
}

/** What the worker needs to compose and send one claimed email. */
export interface ClaimedNotification {
  id: string;
  lease_token: string;
  /** Attempts so far, this one included. */
  attempts: number;
  reason: Reason;
  /** The rule that made it: recorded since migration 0080, derived from the settings before. */
  rule: Rule;
  /** Null for an invitation. */
  help_request_id: string | null;
  priority: string | null;
  request_created_at: Date | null;
  /** An escalation's window (minutes) and whether it went to every admin for want of a list. */
  escalation_window: number | null;
  escalation_to_admins: boolean | null;
  institution_name: string;
  institution_slug: string;
  time_zone: string;
  /** The address: the person's, or the student's. */
  person_email: string;
  /** The person was removed since (a student's row goes with the student). */
  person_removed: boolean;
}

/**
 * Claims up to `limit` due rows under a new lease (FOR UPDATE SKIP LOCKED: any number of workers
 * share the outbox and a row is claimed by one of them at a time). The due time moves to the end
 * of the lease, so a worker that dies mid-send lets the row fall due again then. An archived
 * institution's rows wait, unclaimed, until it is restored (docs/archiving.md).
 *
 * The recipient is a person or a student (migration 0080); an invitation has no request.
 */
export async function claimDue(
  db: Queryable,
  request: { now: Date; limit: number; leaseMs: number; institutionIds: string[] | null },
): Promise<ClaimedNotification[]> {
  const leaseUntil = new Date(request.now.getTime() + request.leaseMs);
  const { rows } = await db.query<ClaimedNotification>(
    `WITH due AS (
       SELECT o.id FROM notifications o
       WHERE o.state = 'pending' AND o.next_attempt_at <= $1
         AND ($5::uuid[] IS NULL OR o.institution_id = ANY ($5::uuid[]))
         AND NOT EXISTS (SELECT 1 FROM institutions a WHERE a.id = o.institution_id AND a.archived_at IS NOT NULL)
       ORDER BY o.next_attempt_at
       LIMIT $2
       FOR UPDATE OF o SKIP LOCKED
     ),
     facts AS (
       SELECT o.id, h.priority, h.created_at AS request_created_at, i.name AS institution_name,
         i.slug AS institution_slug, i.time_zone, coalesce(p.email, s.email) AS person_email,
         coalesce(p.removed_at IS NOT NULL, false) AS person_removed,
         coalesce(o.rule, CASE o.reason
           WHEN 'crisis' THEN CASE WHEN coalesce(ns.crisis, false) THEN 'crisis_recipient' ELSE 'any_new' END
           WHEN 'new' THEN 'any_new' WHEN 'assigned' THEN 'assigned_to_me' ELSE 'assignee' END) AS rule,
         e.window_minutes AS escalation_window, e.to_admins AS escalation_to_admins
       FROM due JOIN notifications o ON o.id = due.id
       JOIN institutions i ON i.id = o.institution_id
       LEFT JOIN help_requests h ON h.id = o.help_request_id
       LEFT JOIN people p ON p.id = o.person_id
       LEFT JOIN students s ON s.id = o.student_id
       LEFT JOIN notification_settings ns ON ns.person_id = o.person_id
       LEFT JOIN help_request_escalations e ON e.help_request_id = o.help_request_id AND o.reason = 'escalation'
     )
     UPDATE notifications n
     SET lease_token = $3, lease_until = $4, next_attempt_at = $4, attempts = n.attempts + 1
     FROM facts f
     WHERE n.id = f.id
     RETURNING n.id, n.lease_token, n.attempts, n.reason, f.rule, n.help_request_id, f.priority,
       f.request_created_at, f.institution_name, f.institution_slug, f.time_zone, f.person_email,
       f.person_removed, f.escalation_window, f.escalation_to_admins`,
    [request.now, request.limit, randomUUID(), leaseUntil, request.institutionIds],
  );
  return rows;
}

/**
 * Queues the invitation of a person just added to an institution (reason invited), in the
 * transaction that adds them.
 */
export async function queueInvitation(
  db: Queryable,
  institutionId: string,
  personId: string,
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO notifications (institution_id, person_id, reason, rule, next_attempt_at, created_at)
     VALUES ($1, $2, 'invited', 'invited', $3, $3)`,
    [institutionId, personId, now],
  );
}

/**
 * Records what became of a claimed row, if this worker still holds its lease (a row whose lease
 * expired and was claimed again is left to its new owner). Returns whether it was recorded.
 */
export async function recordOutcome(
  db: Queryable,
  claimed: { id: string; lease_token: string },
  outcome:
    | { state: 'sent' | 'failed' | 'skipped'; error: string | null; at: Date }
    | { state: 'pending'; error: string; at: Date; nextAttemptAt: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE notifications
     SET state = $3, last_error = $4, lease_token = NULL, lease_until = NULL,
       next_attempt_at = coalesce($6, next_attempt_at),
       finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE $5::timestamptz END
     WHERE id = $1 AND lease_token = $2 AND state = 'pending'`,
    [
      claimed.id,
      claimed.lease_token,
      outcome.state,
      outcome.error,
      outcome.at,
      outcome.state === 'pending' ? outcome.nextAttemptAt : null,
    ],
  );
  return rowCount === 1;
}

/**
 * With email off, every due row is marked skipped at once (one statement), so nothing piles up
 * to be sent, late, when email is turned on.
 */
export async function skipDue(
  db: Queryable,
  request: { now: Date; reason: string; institutionIds: string[] | null },
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE notifications SET state = 'skipped', last_error = $2, finished_at = $1
     WHERE state = 'pending' AND next_attempt_at <= $1
       AND ($3::uuid[] IS NULL OR institution_id = ANY ($3::uuid[]))`,
    [request.now, request.reason, request.institutionIds],
  );
  return rowCount;
}

/** Deletes finished rows queued before `before`, at most `batch` of them (oldest first). */
export async function pruneFinished(db: Queryable, before: Date, batch = 5_000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM notifications WHERE id IN (
       SELECT id FROM notifications WHERE created_at < $1 AND state <> 'pending'
       ORDER BY created_at LIMIT $2)`,
    [before, batch],
  );
  return rowCount;
}

/** Vacuums the outbox and renews its statistics (embedded PGlite, which has no autovacuum). */
export async function vacuumOutbox(db: Db): Promise<void> {
  await db.exec('VACUUM (ANALYZE) notifications');
}

/** The email worker's queue for the metrics: emails due now (a claim moves the due time on), and the oldest's wait. */
export function selectEmailQueue(q: Queryable, now: Date): Promise<QueueDepth> {
  return selectQueueDepth(
    q,
    'next_attempt_at',
    "FROM notifications WHERE state = 'pending' AND next_attempt_at <= $1",
    now,
  );
}
