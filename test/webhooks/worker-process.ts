// A delivery worker in its own process, for the test that kills one mid-delivery. Started with
// `process.execPath` by test/webhooks/killed-worker.test.ts; reads its settings from the
// environment, says "ready" on stdout, then delivers until it is killed.
import { createPostgresDb } from '../../src/db/db.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createKeyring, parseKey } from '../../src/lib/encryption.ts';
import { createWebhookWorker } from '../../src/workers/webhook-delivery.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const db = createPostgresDb({
  connectionString: env('WORKER_DATABASE_URL'),
  schema: env('WORKER_SCHEMA'),
  max: 2,
});
const worker = createWebhookWorker({
  db,
  clock: systemClock,
  policy: { allowLoopback: true },
  keyring: createKeyring(parseKey(env('WORKER_ENCRYPTION_KEY'))!),
  institutionIds: [env('WORKER_INSTITUTION_ID')],
  attemptTimeoutMs: Number(env('WORKER_ATTEMPT_TIMEOUT_MS')),
  // The default lease and renewal period unless set.
  ...(process.env.WORKER_LEASE_MS ? { leaseMs: Number(process.env.WORKER_LEASE_MS) } : {}),
});
worker.start();
process.stdout.write('ready\n');
