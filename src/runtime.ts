// What a process builds, and only what it runs: the dependencies every domain function picks
// from (createRuntime), the OneRoster pull's (pullDepsOf, from its own module) and the background workers
// (createWorkers), for `ssp serve`, `ssp worker` and the tests alike. The OpenID Connect client
// and Redis are opened on first use: a process that signs nobody in opens no OIDC client, one
// that serves no HTTP opens no Redis.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { type Db, forBackground } from './db/db.ts';
import type { FetchSettings } from './domain/calendar/schedule.ts';
import type { Deps } from './domain/deps.ts';
import { type PullDeps, pullDepsOf } from './domain/oneroster/pull/pull.ts';
import { createOidcClient, type OidcClient } from './domain/people/oidc-client.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { type Keyring, keyringFromConfig } from './lib/encryption.ts';
import type { OutboundPolicy } from './lib/outbound-url.ts';
import { createSignal } from './lib/signal.ts';
import { type CalendarFetchWorker, createCalendarFetchWorker } from './workers/calendar-fetch.ts';
import { escalationWorkerOnce } from './workers/escalation.ts';
import { type NotificationWorker, processNotificationWorker } from './workers/notification-email.ts';
import { createOneRosterPullWorker, type OneRosterPullWorker } from './workers/oneroster-pull.ts';
import { createRetentionWorker, type RetentionWorker } from './workers/retention.ts';
import { createWebhookWorker, type WebhookWorker, type WorkerLogger } from './workers/webhook-delivery.ts';

/** A OneRoster pull's dependencies from the process's (the pull's own module builds them). */
export { type PullOverrides, pullDepsOf } from './domain/oneroster/pull/pull.ts';

export interface RuntimeOptions {
  db: Db;
  config: Config;
  clock?: Clock;
  /** Shared rate-limit counters; opened from config.redisUrl on first use when not given. */
  redis?: Redis;
  /** Encryption of stored secrets; built from config (or the embedded key file) when not given. */
  keyring?: Keyring;
  /** The OpenID Connect client, when a test brings its own (closed with the runtime all the same). */
  oidc?: OidcClient;
  /** Opens the OpenID Connect client on first use (the real one unless a test counts openings). */
  openOidc?: (deps: Pick<Deps, 'policy' | 'clock'>) => OidcClient;
  /** DNS a test keeps on its machine: the outbound policy's save-time resolver and connect-time lookup. */
  dns?: Pick<OutboundPolicy, 'resolve' | 'lookup'>;
  /** Calendar fetch limits and jitter a test changes (domain/calendar/schedule.ts's otherwise). */
  calendarFetch?: FetchSettings;
}

/** A process's dependencies, plus what it opened lazily and how to release it. */
export interface Runtime extends Deps {
  /** The shared rate-limit store when REDIS_URL names one: opened on first read. */
  readonly redis: Redis | undefined;
  /** What has been opened so far (the OIDC client, Redis): nothing until something uses them. */
  opened(): { oidc: boolean; redis: boolean };
  /** Releases what the runtime opened itself (not the database, which the caller owns). */
  close(): Promise<void>;
}

/** ioredis, loaded only when REDIS_URL is set (about 2 MB of heap the embedded default does without). */
const loadRedis = (): typeof Redis => createRequire(import.meta.url)('ioredis').Redis;

/** The shared rate-limit store of a REDIS_URL. */
function openRedis(url: string): Redis {
  const redis = new (loadRedis())(url, {
    // While Redis is unreachable, rate-limit commands fail at once (and requests are served
    // unlimited) instead of queueing behind a reconnect; a slow Redis costs 200 ms at most.
    enableOfflineQueue: false,
    commandTimeout: 200,
    connectTimeout: 1000,
    maxRetriesPerRequest: 1,
  });
  // A lost Redis connection is reported by the rate limiter per request; it must not crash the process.
  redis.on('error', () => {});
  return redis;
}

/** An OIDC client that opens the real one on its first call (close() is a no-op until then). */
function lazyOidc(open: () => OidcClient): { client: OidcClient; opened: () => boolean } {
  let real: OidcClient | undefined;
  const use = (): OidcClient => {
    real ??= open();
    return real;
  };
  const client: OidcClient = {
    startSignIn: (provider, redirectUri) => use().startSignIn(provider, redirectUri),
    finishSignIn: (provider, redirectUri, callbackUrl, expected) =>
      use().finishSignIn(provider, redirectUri, callbackUrl, expected),
    check: (provider) => use().check(provider),
    close: async () => real?.close(),
  };
  return { client, opened: () => real !== undefined };
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const { db, config } = options;
  const clock = options.clock ?? systemClock;
  const policy: OutboundPolicy = { allowLoopback: config.allowLoopbackOutbound, ...options.dns };
  const openOidc = options.openOidc ?? createOidcClient;
  const oidc = options.oidc
    ? { client: options.oidc, opened: () => true, owned: false }
    : { ...lazyOidc(() => openOidc({ policy, clock })), owned: true };
  let redis = options.redis;
  let ownedRedis: Redis | undefined;
  return {
    db,
    config,
    clock,
    policy,
    keyring: options.keyring ?? keyringFromConfig(config),
    oidc: oidc.client,
    calendarFetch: options.calendarFetch,
    pullRequested: createSignal(),
    get redis() {
      if (!redis && config.redisUrl) redis = ownedRedis = openRedis(config.redisUrl);
      return redis;
    },
    opened: () => ({ oidc: oidc.owned && oidc.opened(), redis: ownedRedis !== undefined }),
    async close() {
      await oidc.client.close();
      if (ownedRedis) await ownedRedis.quit().catch(() => ownedRedis?.disconnect());
    },
  };
}

/**
 * The background workers of a process, built on first use and once each (not started: `all()`
 * gives start() and stop() over every one). Each logs through the logger of the process that
 * runs it (the HTTP application's, or that of `ssp worker`), which exists only once that
 * process has built it, so it is handed over here rather than at construction.
 */
export function createWorkers(
  deps: Pick<Deps, 'db' | 'clock' | 'keyring' | 'policy' | 'config' | 'calendarFetch'>,
  pull: PullDeps,
) {
  const { clock, keyring, policy, config, calendarFetch } = deps;
  // Background work takes its turns on the embedded database after requests' (db.ts).
  const db = forBackground(deps.db);
  const backgroundPull: PullDeps = { ...pull, db: forBackground(pull.db) };
  let webhook: WebhookWorker | undefined;
  let calendar: CalendarFetchWorker | undefined;
  let oneRoster: OneRosterPullWorker | undefined;
  let notification: NotificationWorker | undefined;
  let retention: RetentionWorker | undefined;
  const escalation = escalationWorkerOnce({ db, clock });
  const workers = {
    /** Webhook deliveries. */
    webhook(logger: WorkerLogger): WebhookWorker {
      webhook ??= createWebhookWorker({ db, clock, policy, keyring, logger });
      return webhook;
    },
    /** Calendar feed fetches. */
    calendar(logger: WorkerLogger): CalendarFetchWorker {
      calendar ??= createCalendarFetchWorker({ db, clock, policy, logger, ...calendarFetch });
      return calendar;
    },
    /** OneRoster pulls. */
    oneRoster(logger: WorkerLogger): OneRosterPullWorker {
      oneRoster ??= createOneRosterPullWorker({ deps: backgroundPull, logger });
      return oneRoster;
    },
    /** Notification emails. */
    notification(logger: WorkerLogger): NotificationWorker {
      notification ??= processNotificationWorker({ db, clock, config }, logger);
      return notification;
    },
    /** Retention: expired exports, erasures and logs removed. */
    retention(logger: WorkerLogger): RetentionWorker {
      retention ??= createRetentionWorker({ db, clock, logger });
      return retention;
    },
    /** Crisis escalations. */
    escalation: escalation.worker,
    /** Every worker of a process: start() them, stop() lets work in flight finish. */
    all(logger: WorkerLogger) {
      const all = [
        workers.webhook(logger),
        workers.calendar(logger),
        workers.notification(logger),
        workers.oneRoster(logger),
        workers.retention(logger),
        workers.escalation(logger),
      ];
      return {
        start: () => {
          for (const worker of all) worker.start();
        },
        stop: async () => {
          await Promise.all(all.map((worker) => worker.stop()));
        },
      };
    },
    /** Stops claiming and lets attempts in flight finish and be recorded (a no-op when stopped). */
    async close(): Promise<void> {
      await webhook?.stop();
      await calendar?.stop();
      await oneRoster?.stop();
      await notification?.stop();
      await retention?.stop();
      await escalation.stop();
    },
  };
  return workers;
}

export type Workers = ReturnType<typeof createWorkers>;

/**
 * The workers of a process that runs them apart from the HTTP application (`ssp worker`, the
 * workers thread), over a runtime of their own. stop() lets work in flight finish, then closes
 * the runtime's connections; the database stays the caller's, as it opened it.
 */
export function workersApart(
  options: Pick<RuntimeOptions, 'db' | 'config' | 'calendarFetch'>,
  logger: WorkerLogger,
) {
  const runtime = createRuntime(options);
  const workers = createWorkers(runtime, pullDepsOf(runtime));
  const all = workers.all(logger);
  return {
    runtime,
    start: all.start,
    async stop(): Promise<void> {
      await all.stop();
      await workers.close();
      await runtime.close();
    },
  };
}
