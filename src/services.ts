// Composition root: builds every domain service once, for HTTP, workers and the CLI alike.
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import { createCalendarService } from './domain/calendar/service.ts';
import { createCampusMergeService } from './domain/campuses/merge.ts';
import { createDeparturesService } from './domain/departures/departures.ts';
import { createHelpRequestsService } from './domain/helpdesk/service.ts';
import { createHelpSyncService } from './domain/helpdesk/sync.ts';
import { createInstitutionsService } from './domain/institutions/service.ts';
import { createRosterSyncService } from './domain/roster/sync.ts';
import { createRunsService } from './domain/runs/runs.ts';
import { createHelpSyncSecretsService } from './domain/secrets/help-sync-secrets.ts';
import { createOperatorCredentials } from './domain/secrets/operator-credentials.ts';
import { createRosterSecretsService } from './domain/secrets/roster-secrets.ts';
import { createTaxonomyService } from './domain/taxonomy/service.ts';
import { createWebhooksService } from './domain/webhooks/service.ts';
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
      ? new Redis(config.redisUrl, {
          // While Redis is unreachable, rate-limit commands fail at once (and requests are served
          // unlimited) instead of queueing behind a reconnect; a slow Redis costs 200 ms at most.
          enableOfflineQueue: false,
          commandTimeout: 200,
          connectTimeout: 1000,
          maxRetriesPerRequest: 1,
        })
      : undefined);
  // A lost Redis connection is reported by the rate limiter per request; it must not crash the process.
  redis?.on('error', () => {});

  const institutions = createInstitutionsService(db);
  const rosterSecrets = createRosterSecretsService(db, config.bootstrapRosterSecretHash);
  const operator = createOperatorCredentials(db, config.operatorTokenHash);
  const runs = createRunsService(db);
  const campusMerge = createCampusMergeService(db);
  const departures = createDeparturesService(db, clock);
  const taxonomy = createTaxonomyService(db, clock);
  const webhooks = createWebhooksService({
    db,
    clock,
    policy: { allowLoopback: config.allowLoopbackOutbound },
  });
  const rosterSync = createRosterSyncService(db, {
    departureHoldThreshold: config.departureHoldThreshold,
    clock,
  });

  return {
    db,
    config,
    clock,
    redis,
    institutions,
    rosterSecrets,
    operator,
    runs,
    campusMerge,
    departures,
    helpSyncSecrets: createHelpSyncSecretsService(db),
    helpRequests: createHelpRequestsService(db, clock),
    helpSync: createHelpSyncService(db, clock),
    taxonomy,
    webhooks,
    rosterSync,
    calendar: createCalendarService({ db, clock, policy: { allowLoopback: config.allowLoopbackOutbound } }),
    /** Releases what the services opened themselves (not the database, which the caller owns). */
    async close(): Promise<void> {
      if (ownsRedis && redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export type Services = ReturnType<typeof createServices>;
