// The delivery worker's shared shapes, apart from its functions: the loop
// (src/workers/webhook-delivery.ts) starts its continuous mode (continuous.ts), and the continuous
// mode names what it uses of the loop here, so neither module imports the other's types back.
import type { Db } from '../../../db/db.ts';
import type { Shares } from './capacity.ts';
import type { Claimed } from './claim.ts';
import type { Inflight } from './inflight.ts';
import type { Result } from './state.ts';

export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the continuous mode uses of the delivery rounds (`deliveryRounds` in src/workers/webhook-delivery.ts). */
export interface ContinuousRounds {
  workerId: string;
  shares: Shares;
  claimAhead: number;
  wakeAfterFinished: number;
  batchSize: number;
  idlePollMs: number;
  /** With `commits`: the idle poll's interval while no transaction commits (see continuous.ts). */
  quietPollMs: number;
  /** Told each time a transaction commits (the embedded database's `Db.commits`), where there is one. */
  commits: Db['commits'];
  leaseMs: number;
  renewEveryMs: number;
  log: WorkerLogger | undefined;
  inflight: Inflight;
  claim(limit: number, ahead?: boolean): Promise<Claimed[]>;
  /** Whether any delivery is due (the idle poll, cheaper than a claim that finds nothing). */
  anyDue(): Promise<boolean>;
  take(delivery: Claimed): AbortController;
  giveBack(deliveries: Claimed[]): Promise<void>;
  attemptOne(delivery: Claimed, abandon?: AbortController): Promise<Result>;
  record(results: Result[]): Promise<void>;
  vacuum(recorded: number): Promise<void>;
  pruneWhenDue(): Promise<void>;
  isClosed(): boolean;
  close(): Promise<void>;
}
