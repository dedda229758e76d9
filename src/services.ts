// Composition root: builds every domain service once, for HTTP, workers and the CLI alike.
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import { createInstitutionsService } from './domain/institutions/service.ts';
import { createRosterSyncService } from './domain/roster/sync.ts';
import { createOperatorCredentials } from './domain/secrets/operator-credentials.ts';
import { createRosterSecretsService } from './domain/secrets/roster-secrets.ts';
import { type Clock, systemClock } from './lib/clock.ts';

export interface ServiceDeps {
  db: Db;
  config: Config;
  clock?: Clock;
  /** Shared rate-limit counters; created from config.redisUrl when not given. */
  redis?: Redis;
}

export function createServices(deps: ServiceDeps) {
  const { db, config } = deps;
  const clock = deps.clock ?? systemClock;
  const ownsRedis = !deps.redis && Boolean(config.redisUrl);
  const redis =
    deps.redis ??
    (config.redisUrl
      ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false })
      : undefined);
  // A lost Redis connection is reported by the rate limiter per request; it must not crash the process.
  redis?.on('error', () => {});

  const institutions = createInstitutionsService(db);
  const rosterSecrets = createRosterSecretsService(db, config.bootstrapRosterSecretHash);
  const operator = createOperatorCredentials(db, config.operatorTokenHash);
  const rosterSync = createRosterSyncService(db);

  return {
    db,
    config,
    clock,
    redis,
    institutions,
    rosterSecrets,
    operator,
    rosterSync,
    /** Releases what the services opened themselves (not the database, which the caller owns). */
    async close(): Promise<void> {
      if (ownsRedis && redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export type Services = ReturnType<typeof createServices>;
