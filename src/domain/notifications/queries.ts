// Notifications' SQL, one function per statement. The outbox rows themselves are created by the
// `events_notification_fan_out` trigger (migration 0050), never here: these read the settings and
// the outbox, and move an outbox row from pending to done.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/db.ts';

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

/** Every current staff member and admin of the institution, by name, with their settings. */
export async function selectPeopleSettings(db: Queryable, institutionId: string): Promise<PersonSettings[]> {
  const { rows } = await db.query<PersonSettings>(
    `SELECT p.id AS person_id, p.name, p.email, p.roles,
       coalesce(s.crisis, false) AS crisis, coalesce(s.any_new, false) AS any_new,
       coalesce(s.assigned, false) AS assigned
     FROM people p LEFT JOIN notification_settings s ON s.person_id = p.id
     WHERE p.institution_id = $1 AND p.removed_at IS NULL AND p.roles && ARRAY['admin', 'staff']
     ORDER BY lower(p.name), lower(p.email), p.id`,
    [institutionId],
  );
  return rows;
}

/** One person's settings (all false when they have none), or undefined if not a current person here. */
export async function selectPersonSettings(
  db: Queryable,
  institutionId: string,
  personId: string,
): Promise<PersonSettings | undefined> {
  const { rows } = await db.query<PersonSettings>(
    `SELECT p.id AS person_id, p.name, p.email, p.roles,
       coalesce(s.crisis, false) AS crisis, coalesce(s.any_new, false) AS any_new,
       coalesce(s.assigned, false) AS assigned
     FROM people p LEFT JOIN notification_settings s ON s.person_id = p.id
     WHERE p.id = $2 AND p.institution_id = $1 AND p.removed_at IS NULL`,
    [institutionId, personId],
  );
  return rows[0];
}

/**
 * Makes exactly these people the institution's crisis recipients, in one statement: they are set,
 * everyone else of the institution unset. The ids must be the institution's current people
 * (checked by the caller in the same transaction).
 */
export async function replaceCrisisRecipients(
  db: Queryable,
  institutionId: string,
  personIds: string[],
  now: Date,
): Promise<void> {
  await db.query(
    `WITH chosen AS (SELECT unnest($2::uuid[]) AS person_id),
     cleared AS (
       UPDATE notification_settings s SET crisis = false, updated_at = $3
       WHERE s.institution_id = $1 AND s.crisis AND NOT (s.person_id = ANY ($2::uuid[]))
     )
     INSERT INTO notification_settings (person_id, institution_id, crisis, updated_at)
     SELECT person_id, $1, true, $3 FROM chosen
     ON CONFLICT (person_id) DO UPDATE SET crisis = true, updated_at = $3
       WHERE notification_settings.crisis = false`,
    [institutionId, personIds, now],
  );
}

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
  reason: 'crisis' | 'new' | 'assigned';
  state: 'pending' | 'sent' | 'failed' | 'skipped';
  attempts: number;
  next_attempt_at: Date | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** The institution's newest notifications (optionally in one state), newest first. */
export async function selectRecent(
  db: Queryable,
  institutionId: string,
  options: { limit: number; state?: string },
): Promise<NotificationRow[]> {
  // Two statements rather than `($3 IS NULL OR state = $3)`, so each reads its own index range.
  const where =
    options.state === undefined ? 'n.institution_id = $1' : 'n.institution_id = $1 AND n.state = $3';
  const { rows } = await db.query<NotificationRow>(
    `SELECT n.id, n.help_request_id, n.person_id, p.name AS person_name, p.email AS person_email,
       n.reason, n.state, n.attempts,
       CASE WHEN n.state = 'pending' THEN n.next_attempt_at END AS next_attempt_at,
       n.last_error, n.created_at, n.finished_at
     FROM notifications n JOIN people p ON p.id = n.person_id
     WHERE ${where}
     ORDER BY n.created_at DESC, n.id DESC
     LIMIT $2`,
    options.state === undefined
      ? [institutionId, options.limit]
      : [institutionId, options.limit, options.state],
  );
  return rows;
}

/** What the worker needs to compose and send one claimed email. */
export interface ClaimedNotification {
  id: string;
  lease_token: string;
  /** Attempts so far, this one included. */
  attempts: number;
  reason: 'crisis' | 'new' | 'assigned';
  help_request_id: string;
  priority: string;
  request_created_at: Date;
  institution_name: string;
  institution_slug: string;
  time_zone: string;
  person_email: string;
  person_removed: boolean;
}

/**
 * Claims up to `limit` due rows under a new lease (FOR UPDATE SKIP LOCKED: any number of workers
 * share the outbox and a row is claimed by one of them at a time). The due time moves to the end
 * of the lease, so a worker that dies mid-send lets the row fall due again then. An archived
 * institution's rows wait, unclaimed, until it is restored (docs/archiving.md).
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
     )
     UPDATE notifications n
     SET lease_token = $3, lease_until = $4, next_attempt_at = $4, attempts = n.attempts + 1
     FROM due, help_requests h, institutions i, people p
     WHERE n.id = due.id AND h.id = n.help_request_id AND i.id = n.institution_id AND p.id = n.person_id
     RETURNING n.id, n.lease_token, n.attempts, n.reason, n.help_request_id, h.priority,
       h.created_at AS request_created_at, i.name AS institution_name, i.slug AS institution_slug,
       i.time_zone, p.email AS person_email, (p.removed_at IS NOT NULL) AS person_removed`,
    [request.now, request.limit, randomUUID(), leaseUntil, request.institutionIds],
  );
  return rows;
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

/** The email worker's queue for the metrics: emails due now (a claim moves the due time on), and the oldest's wait. */
export async function selectEmailQueue(
  q: Queryable,
  now: Date,
): Promise<{ depth: number; lagSeconds: number }> {
  const { rows } = await q.query<{ depth: number; lag_seconds: number }>(
    `SELECT count(*) AS depth, COALESCE(EXTRACT(EPOCH FROM ($1 - min(next_attempt_at))), 0)::float8 AS lag_seconds
     FROM notifications WHERE state = 'pending' AND next_attempt_at <= $1`,
    [now],
  );
  return { depth: rows[0].depth, lagSeconds: rows[0].lag_seconds };
}
