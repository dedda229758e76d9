// One claimed outbox row, sent and recorded: the email composed (email.ts), handed to the mailer
// (mailer.ts), and the outcome written if the claim still holds its lease: sent; pending again
// after an exponential backoff (retry.ts); failed with the reason after the last attempt or a
// permanent refusal; skipped when the person was removed meanwhile. And the outbox's upkeep.
// The loop that claims the rows and calls these is src/workers/notification-email.ts.
import type { Db } from '../../db/db.ts';
import type { Deps } from '../deps.ts';
import { composeEmail } from './email.ts';
import type { Mailer } from './mailer.ts';
import { type ClaimedNotification, pruneFinished, recordOutcome, vacuumOutbox } from './queries.ts';
import { decideAfterFailure, type RetryPolicy } from './retry.ts';

/** What became of one row: the state it was left in, and why when it failed. */
export type SendOutcome = { state: 'sent' | 'retried' | 'skipped' } | { state: 'failed'; reason: string };

/** What sending needs beyond the database and the clock. */
export interface Sending {
  mailer: Mailer;
  /** Where links in emails point. */
  publicBaseUrl: string;
  retry: RetryPolicy;
  random?: () => number;
}

/** The email of one row, as composed for its reason (a link to the request, nothing sensitive). */
function emailOf(row: ClaimedNotification, publicBaseUrl: string) {
  return composeEmail({
    notificationId: row.id,
    reason: row.reason,
    rule: row.rule,
    helpRequestId: row.help_request_id,
    priority: row.priority,
    requestCreatedAt: row.request_created_at,
    institutionName: row.institution_name,
    institutionSlug: row.institution_slug,
    timeZone: row.time_zone,
    publicBaseUrl,
    escalation:
      row.reason === 'escalation'
        ? { windowMinutes: row.escalation_window ?? 15, toAdmins: row.escalation_to_admins ?? false }
        : undefined,
  });
}

/** Sends one claimed row's email and records what came of it. */
export async function sendNotification(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  row: ClaimedNotification,
  sending: Sending,
): Promise<SendOutcome> {
  if (row.person_removed) {
    await recordOutcome(db, row, { state: 'skipped', error: 'the person was removed', at: clock.now() });
    return { state: 'skipped' };
  }
  const result = await sending.mailer.send({ to: row.person_email, ...emailOf(row, sending.publicBaseUrl) });
  if (result.ok) {
    await recordOutcome(db, row, { state: 'sent', error: null, at: clock.now() });
    return { state: 'sent' };
  }
  const decision = decideAfterFailure(result.failure, row.attempts, sending.retry, sending.random);
  if (decision.kind === 'failed') {
    await recordOutcome(db, row, { state: 'failed', error: decision.reason, at: clock.now() });
    return { state: 'failed', reason: decision.reason };
  }
  const now = clock.now();
  await recordOutcome(db, row, {
    state: 'pending',
    error: result.failure.message,
    at: now,
    nextAttemptAt: new Date(now.getTime() + decision.delayMs),
  });
  return { state: 'retried' };
}

/**
 * Upkeep: finished rows queued before `before` are deleted (a bounded batch), and on embedded
 * PGlite, which has no autovacuum, the outbox is vacuumed and its statistics renewed so the claim
 * and the console's listing keep their index plans. (PostgreSQL: autovacuum.)
 */
export async function tidyOutbox(db: Db, before: Date): Promise<void> {
  await pruneFinished(db, before);
  if (db.kind === 'pglite') await vacuumOutbox(db);
}
