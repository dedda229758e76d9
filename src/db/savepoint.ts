// A piece of a transaction that may fail on its own: run in a savepoint, it either lands whole or
// leaves the transaction as it was, so the caller can go on (help-sync's rows fail one by one).
import type { Queryable } from './db.ts';

/** Runs `work` in a savepoint of `tx`: true when it landed, false (nothing of it kept) when it threw. */
export async function inSavepoint(tx: Queryable, name: string, work: () => Promise<void>): Promise<boolean> {
  await tx.query(`SAVEPOINT ${name}`);
  try {
    await work();
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return true;
  } catch {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await tx.query(`RELEASE SAVEPOINT ${name}`);
    return false;
  }
}
