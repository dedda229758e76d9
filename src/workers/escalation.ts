// Escalation worker: every `pollMs` (5 s by default, so a crisis request escalates within seconds
// of its window ending) it escalates the crisis requests nobody acknowledged within their
// institution's window (src/domain/inbox/escalation.ts). Durable: the state it works from is the
// requests themselves, so a worker that was down escalates what fell due meanwhile when it comes
// back, and the emails go through the notifications outbox. Any number of workers share the scan
// (FOR UPDATE SKIP LOCKED), and the escalation's primary key makes each happen once.
//
// Cost: an idle round is one query of a partial index holding only unacknowledged crisis requests.
import type { Db } from '../db/db.ts';
import { escalateRound } from '../domain/inbox/escalation.ts';
import type { Clock } from '../lib/clock.ts';
import { workerJob } from '../lib/telemetry/jobs.ts';
import { type WorkerLogger, workerLoop } from './worker-loop.ts';

export type EscalationWorkerLogger = WorkerLogger;

export interface EscalationWorkerOptions {
  db: Db;
  clock: Clock;
  logger?: EscalationWorkerLogger;
  pollMs?: number;
  /** Most requests escalated per round. */
  batchSize?: number;
  /** Only these institutions' requests (tests; dedicated workers). */
  institutionIds?: string[];
}

export function createEscalationWorker(options: EscalationWorkerOptions) {
  const pollMs = options.pollMs ?? 5_000;
  const batchSize = options.batchSize ?? 20;
  const log = options.logger;

  async function runOnce() {
    const round = await workerJob(
      'escalation',
      () =>
        escalateRound(
          { db: options.db, now: options.clock.now() },
          { limit: batchSize, institutionIds: options.institutionIds },
        ),
      { outcome: (r) => (r.escalated > 0 ? 'escalated' : 'idle') },
    );
    for (const e of round.escalations)
      log?.warn(
        { help_request_id: e.help_request_id, institution_id: e.institution_id },
        'crisis request escalated: not acknowledged within the window',
      );
    return { claimed: round.claimed, escalated: round.escalated };
  }

  // A full batch: more may be due, scan again at once.
  const loop = workerLoop('escalation worker', log, runOnce, {
    full: (claimed) => claimed >= batchSize,
    pollMs,
    failed: 'escalating crisis requests failed',
  });

  return { runOnce, start: loop.start, stop: loop.stop };
}

export type EscalationWorker = ReturnType<typeof createEscalationWorker>;

/** The worker of a process, built once on first use (with the logger of that process) and stopped with it. */
export function escalationWorkerOnce(deps: { db: Db; clock: Clock }) {
  let worker: EscalationWorker | undefined;
  return {
    worker: (logger: EscalationWorkerLogger): EscalationWorker => {
      worker ??= createEscalationWorker({ ...deps, logger });
      return worker;
    },
    stop: async () => worker?.stop(),
  };
}
