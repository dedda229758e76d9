// Composition root: builds every domain service once, for HTTP, workers and the CLI alike.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import { createAdminAudit } from './domain/access/audit.ts';
import { bindAuditTrail } from './domain/audit/trail.ts';
import { createCalendarService } from './domain/calendar/service.ts';
import { createCampusMergeService } from './domain/campuses/merge.ts';
import { createDeparturesService } from './domain/departures/departures.ts';
import { createHelpRequestsService } from './domain/helpdesk/service.ts';
import { createHelpSyncService } from './domain/helpdesk/sync.ts';
import { createInboxService } from './domain/inbox/service.ts';
import { createInstitutionsService } from './domain/institutions/service.ts';
import { createNotificationsService, emailStatusOf } from './domain/notifications/service.ts';
import { createNotificationWorker, type NotificationWorker } from './domain/notifications/worker.ts';
import { pullLimitsOf } from './domain/oneroster/pull/client.ts';
import type { PullDeps, PullMode } from './domain/oneroster/pull/pull.ts';
import { pullStatus, requestPull } from './domain/oneroster/pull/requests.ts';
import { createOneRosterSources } from './domain/oneroster/pull/sources.ts';
import { createIdentityProviders } from './domain/people/identity-providers.ts';
import { createOidcClient, type OidcClient } from './domain/people/oidc-client.ts';
import { createPeople } from './domain/people/people.ts';
import { createSessions } from './domain/people/sessions.ts';
import { createSignIn } from './domain/people/sign-in.ts';
import { createRosterSyncService } from './domain/roster/sync.ts';
import { createRunsService } from './domain/runs/runs.ts';
import { createSavedReplies } from './domain/saved-replies/saved-replies.ts';
import { createHelpSyncSecretsService } from './domain/secrets/help-sync-secrets.ts';
import { createOperatorCredentials } from './domain/secrets/operator-credentials.ts';
import { createRosterSecretsService } from './domain/secrets/roster-secrets.ts';
import { createStudentApp } from './domain/students/service.ts';
import { createTaxonomyService } from './domain/taxonomy/service.ts';
import {
  createWebhookWorker,
  type WebhookWorker,
  type WorkerLogger,
} from './domain/webhooks/delivery/worker.ts';
import { createWebhooksService } from './domain/webhooks/service.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { type Keyring, keyringFromConfig } from './lib/encryption.ts';
import { type CalendarFetchWorker, createCalendarFetchWorker } from './workers/calendar-fetch.ts';
import { escalationWorkerOnce } from './workers/escalation.ts';
import { registerDatabaseMetrics } from './workers/metrics.ts';
import { createOneRosterPullWorker, type OneRosterPullWorker } from './workers/oneroster-pull.ts';
import { createPrivacyParts } from './workers/retention.ts';

export interface ServiceDeps {
  db: Db;
  config: Config;
  clock?: Clock;
  /** Shared rate-limit counters; created from config.redisUrl when not given. */
  redis?: Redis;
  /** Encryption of stored secrets; built from config (or the embedded key file) when not given. */
  keyring?: Keyring;
  /** The OpenID Connect client; the real one unless a test brings its own. */
  oidc?: OidcClient;
  /** OneRoster pulls: limits, waits and DNS a test changes (everything else is built here). */
  oneRosterPull?: Partial<Pick<PullDeps, 'limits' | 'sleep' | 'random' | 'lookup'>>;
}

/** ioredis, loaded only when REDIS_URL is set (about 2 MB of heap the embedded default does without). */
const loadRedis = (): typeof Redis => createRequire(import.meta.url)('ioredis').Redis;

/** The shared rate-limit store, when REDIS_URL names one. */
function redisFromConfig(url: string | undefined): Redis | undefined {
  if (!url) return undefined;
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

export function createServices(deps: ServiceDeps) {
  const { db, config } = deps;
  const clock = deps.clock ?? systemClock;
  const ownsRedis = !deps.redis && Boolean(config.redisUrl);
  const redis = deps.redis ?? redisFromConfig(config.redisUrl);

  const keyring = deps.keyring ?? keyringFromConfig(config);
  const institutions = createInstitutionsService(db);
  const oidc =
    deps.oidc ?? createOidcClient({ policy: { allowLoopback: config.allowLoopbackOutbound }, clock });
  const { sessionIdleMinutes: idleMinutes, sessionMaxHours: maxHours } = config;
  const sessions = createSessions(db, clock, { idleMinutes, maxHours });
  const identityProviders = createIdentityProviders(db, clock, keyring, oidc);
  const rosterSecrets = createRosterSecretsService(db, config.bootstrapRosterSecretHash);
  const operator = createOperatorCredentials(db, config.operatorTokenHash);
  const runs = createRunsService(db);
  const campusMerge = createCampusMergeService(db);
  const departures = createDeparturesService(db, clock);
  const taxonomy = createTaxonomyService(db, clock);
  const policy = { allowLoopback: config.allowLoopbackOutbound };
  const feedsPerInstitution = config.calendarFeedsPerInstitution;
  const webhooks = createWebhooksService({ db, clock, policy, keyring });
  let webhookWorker: WebhookWorker | undefined;
  let calendarWorker: CalendarFetchWorker | undefined;
  let oneRosterWorker: OneRosterPullWorker | undefined;
  let notificationWorker: NotificationWorker | undefined;
  const helpRequests = createHelpRequestsService(db, clock);
  const escalation = escalationWorkerOnce({ db, clock });
  const { departureHoldThreshold } = config;
  const rosterSync = createRosterSyncService(db, { departureHoldThreshold, clock });
  const unregisterMetrics = registerDatabaseMetrics(db, clock); // what GET /metrics reads
  const oneRosterPull: PullDeps = {
    db,
    clock,
    keyring,
    policy,
    limits: pullLimitsOf(config.oneRosterPull),
    rosterSync,
    taxonomy,
    ...deps.oneRosterPull,
  };

  return {
    db,
    config,
    clock,
    redis,
    keyring,
    /** The OpenID Connect client: sign-in, and the discovery check of a provider's settings. */
    oidc,
    institutions,
    sessions,
    people: createPeople(db, clock, sessions),
    identityProviders,
    signIn: createSignIn({
      db,
      clock,
      keyring,
      oidc,
      sessions,
      providers: identityProviders,
      publicBaseUrl: config.publicBaseUrl,
      pendingMax: config.signInPendingMax,
      pendingPerInstitution: config.signInPendingPerInstitution,
      pendingPerNetwork: config.signInPendingPerNetwork,
    }),
    adminAudit: createAdminAudit(db, clock),
    /** The admin audit and the help-request audit as admins read them (filtered, paged, exported). */
    auditTrail: bindAuditTrail(db),
    rosterSecrets,
    operator,
    runs,
    campusMerge,
    departures,
    helpSyncSecrets: createHelpSyncSecretsService(db),
    helpRequests,
    /** The student pages' domain: a signed-in student's home, own requests and crisis contacts. */
    studentApp: createStudentApp({ db, clock, helpRequests }),
    helpSync: createHelpSyncService(db, clock),
    /** Named reply texts admins keep for staff to insert into replies. */
    savedReplies: createSavedReplies(db, clock),
    taxonomy,
    webhooks,
    rosterSync,
    /**
     * The webhook delivery worker (not started: `start()` it), built once with this database and
     * clock like every other service. It logs through the logger of the process that runs it (the
     * HTTP application's, or that of `ssp worker`), which exists only once that process has
     * built it, so it is handed over here rather than at construction.
     */
    webhookWorker(logger: WorkerLogger): WebhookWorker {
      webhookWorker ??= createWebhookWorker({ db, clock, policy, keyring, logger });
      return webhookWorker;
    },
    calendar: createCalendarService({ db, clock, policy, feedsPerInstitution }),
    /** The calendar fetch worker (not started), built once like the webhook worker. */
    calendarWorker(logger: WorkerLogger): CalendarFetchWorker {
      calendarWorker ??= createCalendarFetchWorker({ db, clock, policy, logger });
      return calendarWorker;
    },
    /** An institution's OneRoster source (settings) and its pulls. */
    oneRosterSources: createOneRosterSources({ db, keyring, policy }),
    oneRosterPull,
    /**
     * "Sync now" (requests.ts): a pull asked for is claimed by the worker, woken here when this
     * process runs it (a standalone worker finds it within its poll interval); and a pull's status.
     */
    oneRosterPulls: {
      async request(institutionId: string, mode?: PullMode) {
        const asked = await requestPull(oneRosterPull, institutionId, mode);
        oneRosterWorker?.wake();
        return asked;
      },
      status: (institutionId: string, runId: string) => pullStatus(oneRosterPull, institutionId, runId),
    },
    /** The OneRoster pull worker (not started), built once like the other workers. */
    oneRosterWorker(logger: WorkerLogger): OneRosterPullWorker {
      oneRosterWorker ??= createOneRosterPullWorker({ deps: oneRosterPull, logger });
      return oneRosterWorker;
    },
    /** Who is told of help requests by email, and whether email is on (docs/notifications.md). */
    notifications: createNotificationsService({
      db,
      clock,
      email: emailStatusOf(config.smtpUrl, config.smtpFrom),
    }),
    /** The notification email worker (not started), built once like the webhook worker. */
    notificationWorker(logger: WorkerLogger): NotificationWorker {
      notificationWorker ??= createNotificationWorker({
        db,
        clock,
        logger,
        smtp: config.smtpUrl ? { url: config.smtpUrl, from: config.smtpFrom } : undefined,
        publicBaseUrl: config.publicBaseUrl,
      });
      return notificationWorker;
    },
    ...createPrivacyParts(db, clock),
    /** Response targets, the escalation window and list, and open escalations (src/domain/inbox/). */
    inbox: createInboxService({ db, clock }),
    /** The crisis escalation worker (not started), built once like the other workers. */
    escalationWorker: escalation.worker,
    /** Every background worker of a process: start() them, stop() lets work in flight finish. */
    workers(logger: WorkerLogger) {
      const all = [
        this.webhookWorker(logger),
        this.calendarWorker(logger),
        this.notificationWorker(logger),
        this.oneRosterWorker(logger),
        this.retentionWorker(logger),
        this.escalationWorker(logger),
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
    /** Releases what the services opened themselves (not the database, which the caller owns). */
    async close(): Promise<void> {
      // Stops claiming and lets attempts in flight finish and be recorded (a no-op when stopped).
      await webhookWorker?.stop();
      await calendarWorker?.stop();
      await oneRosterWorker?.stop();
      await notificationWorker?.stop();
      await escalation.stop();
      await oidc.close();
      unregisterMetrics();
      if (ownsRedis && redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export type Services = ReturnType<typeof createServices>;
