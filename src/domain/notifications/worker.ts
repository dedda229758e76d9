// Notification worker: every `pollMs` (2 s by default, so an email leaves well within a minute of
// the request) it claims due outbox rows under a lease (queries.ts, FOR UPDATE SKIP LOCKED), sends
// each over SMTP (mailer.ts) and records the outcome if it still holds the lease: sent; pending
// again after an exponential backoff (retry.ts); failed with the reason after the last attempt or
// a permanent refusal; skipped when the person was removed meanwhile.
//
// Any number of workers, in one process or many, share the outbox: a row is claimed by one worker
// at a time, so in normal operation no email is sent twice. A worker that dies after the server
// accepted a message but before recording it leaves the row to fall due when its lease ends, and
// the email is sent again (at least once; the Message-ID is the same, so mail clients may fold the
// two). Without SMTP configured, each round marks the due rows skipped instead (docs/notifications.md).
//
// Cost: an idle round is one indexed query (the due index holds pending rows only); a busy round
// one claim for up to `batchSize` rows, then one UPDATE per email by primary key.

import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { pollLoop } from '../../lib/poll-loop.ts';
import { workerJob } from '../../lib/telemetry/jobs.ts';
import { composeEmail } from './email.ts';
import { createMailer, type Mailer } from './mailer.ts';
import { type ClaimedNotification, claimDue, pruneFinished, recordOutcome, skipDue } from './queries.ts';
import { decideAfterFailure, defaultRetryPolicy, type RetryPolicy } from './retry.ts';

export interface NotificationWorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface NotificationWorkerOptions {
  db: Db;
  clock: Clock;
  /** SMTP settings; undefined: email is off and due rows are skipped. */
  smtp: { url: string; from: string } | undefined;
  /** Where links in emails point. */
  publicBaseUrl: string;
  logger?: NotificationWorkerLogger;
  /** Sleep between rounds when nothing was due. */
  pollMs?: number;
  /** Most rows claimed (and emails sent at once) per round. */
  batchSize?: number;
  /** A claimed row not recorded within this long falls due again. */
  leaseMs?: number;
  retry?: Partial<RetryPolicy>;
  random?: () => number;
  /** Only these institutions' notifications (tests; dedicated workers). */
  institutionIds?: string[];
  /** Finished rows are deleted this long after they were queued. */
  retentionMs?: number;
}

export interface NotificationRound {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
  skipped: number;
}

export const EMAIL_OFF_REASON = 'email is off: SMTP_URL is not set';
const PRUNE_EVERY_MS = 3_600_000;

export function createNotificationWorker(options: NotificationWorkerOptions) {
  const { db, clock } = options;
  const log = options.logger;
  const pollMs = options.pollMs ?? 2_000;
  const batchSize = options.batchSize ?? 10;
  const leaseMs = options.leaseMs ?? 120_000;
  const retentionMs = options.retentionMs ?? 30 * 24 * 3_600_000;
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const institutionIds = options.institutionIds ?? null;
  let mailer: Mailer | undefined;
  let lastPrune = 0;

  /** Sends one email and records what came of it; returns that outcome (the metrics' label). */
  async function deliver(
    row: ClaimedNotification,
    round: NotificationRound,
  ): Promise<'sent' | 'retried' | 'failed' | 'skipped'> {
    const at = () => clock.now();
    if (row.person_removed) {
      await recordOutcome(db, row, { state: 'skipped', error: 'the person was removed', at: at() });
      round.skipped++;
      return 'skipped';
    }
    const email = composeEmail({
      notificationId: row.id,
      reason: row.reason,
      rule: row.rule,
      helpRequestId: row.help_request_id,
      priority: row.priority,
      requestCreatedAt: row.request_created_at,
      institutionName: row.institution_name,
      institutionSlug: row.institution_slug,
      timeZone: row.time_zone,
      publicBaseUrl: options.publicBaseUrl,
      escalation:
        row.reason === 'escalation'
          ? { windowMinutes: row.escalation_window ?? 15, toAdmins: row.escalation_to_admins ?? false }
          : undefined,
    });
    mailer ??= createMailer(options.smtp?.url ?? '', options.smtp?.from ?? '');
    const result = await mailer.send({ to: row.person_email, ...email });
    if (result.ok) {
      await recordOutcome(db, row, { state: 'sent', error: null, at: at() });
      round.sent++;
      return 'sent';
    }
    const decision = decideAfterFailure(result.failure, row.attempts, policy, options.random);
    if (decision.kind === 'failed') {
      await recordOutcome(db, row, { state: 'failed', error: decision.reason, at: at() });
      round.failed++;
      log?.warn({ notification_id: row.id, reason: decision.reason }, 'notification email failed');
      return 'failed';
    }
    const now = at();
    await recordOutcome(db, row, {
      state: 'pending',
      error: result.failure.message,
      at: now,
      nextAttemptAt: new Date(now.getTime() + decision.delayMs),
    });
    round.retried++;
    return 'retried';
  }

  /**
   * Hourly upkeep: finished rows past their retention are deleted (a bounded batch), and on
   * embedded PGlite, which has no autovacuum, the outbox is vacuumed and its statistics renewed so
   * the claim and the console's listing keep their index plans. (PostgreSQL: autovacuum.)
   */
  async function maintain(now: Date): Promise<void> {
    try {
      await pruneFinished(db, new Date(now.getTime() - retentionMs));
      if (db.kind === 'pglite') await db.exec('VACUUM (ANALYZE) notifications');
    } catch (error) {
      log?.warn({ err: error }, 'notification outbox upkeep failed; tried again in an hour');
    }
  }

  /** One round: skip (email off) or claim, send and record what is due now. */
  async function runOnce(): Promise<NotificationRound> {
    const round: NotificationRound = { claimed: 0, sent: 0, retried: 0, failed: 0, skipped: 0 };
    const now = clock.now();
    if (now.getTime() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now.getTime();
      await maintain(now);
    }
    if (!options.smtp) {
      round.skipped = await skipDue(db, { now, reason: EMAIL_OFF_REASON, institutionIds });
      return round;
    }
    const claimed = await claimDue(db, { now, limit: batchSize, leaseMs, institutionIds });
    round.claimed = claimed.length;
    await Promise.all(
      claimed.map((row) =>
        workerJob('notifications', () => deliver(row, round), {
          attributes: { 'ssp.notification_id': row.id },
          outcome: (state) => state,
        }).catch((error) => {
          // Recording failed (database unavailable): the lease ends and the row falls due again.
          log?.error({ err: error, notification_id: row.id }, 'recording a notification failed');
        }),
      ),
    );
    return round;
  }

  // A full batch: more may be due, claim again at once.
  const poller = pollLoop({
    round: runOnce,
    full: (claimed) => claimed >= batchSize,
    pollMs,
    onError: (error) => log?.error({ err: error }, 'claiming notifications failed'),
  });

  return {
    runOnce,
    /** Whether emails are sent (SMTP configured). */
    enabled: Boolean(options.smtp),
    start(): void {
      if (poller.running) return;
      log?.info({ email: options.smtp ? 'on' : 'off' }, 'notification worker started');
      poller.start();
    },
    /** Stops claiming and waits for the emails in flight (at most `stopWaitMs`). */
    async stop(stopWaitMs = 5_000): Promise<void> {
      await poller.stop(stopWaitMs);
      mailer?.close();
      mailer = undefined;
    },
  };
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>;
