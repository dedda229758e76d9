// Composition root of the HTTP application: binds the domain to one runtime (src/runtime.ts:
// database, clock, configuration, keyring, the OIDC client and Redis opened on first use) for the
// route files. Shrinking: routes that import the area's functions read `request.deps` instead.
import { createCalendarService } from './domain/calendar/service.ts';
import { createHelpRequestsService } from './domain/helpdesk/service.ts';
import { createHelpSyncService } from './domain/helpdesk/sync.ts';
import { createInboxService } from './domain/inbox/service.ts';
import { createNotificationsService, emailStatusOf } from './domain/notifications/service.ts';
import { createIdentityProviders } from './domain/people/identity-providers.ts';
import { createPeople } from './domain/people/people.ts';
import { createSessions } from './domain/people/sessions.ts';
import { createSignIn } from './domain/people/sign-in.ts';
import { createPrivacyService } from './domain/privacy/service.ts';
import { createStudentApp } from './domain/students/service.ts';
import { createWebhooksService } from './domain/webhooks/service.ts';
import { createRuntime, createWorkers, pullDepsOf, type RuntimeOptions } from './runtime.ts';
import { registerDatabaseMetrics } from './workers/metrics.ts';
import type { WorkerLogger } from './workers/webhook-delivery.ts';

export type ServiceDeps = RuntimeOptions;

export function createServices(options: ServiceDeps) {
  const runtime = createRuntime(options);
  const { db, config, clock, keyring, oidc, policy } = runtime;
  const { sessionIdleMinutes: idleMinutes, sessionMaxHours: maxHours } = config;
  const sessions = createSessions(db, clock, { idleMinutes, maxHours });
  const identityProviders = createIdentityProviders(db, clock, keyring, oidc);
  const feedsPerInstitution = config.calendarFeedsPerInstitution;
  const webhooks = createWebhooksService({ db, clock, policy, keyring });
  const helpRequests = createHelpRequestsService(db, clock);
  const workers = createWorkers(runtime, pullDepsOf(runtime));
  const unregisterMetrics = registerDatabaseMetrics(db, clock); // what GET /metrics reads

  return {
    /** The process's dependencies, which routes read as `request.deps`. */
    deps: runtime,
    db,
    config,
    clock,
    /** The shared rate-limit store, opened on first read when REDIS_URL names one. */
    get redis() {
      return runtime.redis;
    },
    keyring,
    /** The OpenID Connect client (opened on first use): sign-in, and a provider's discovery check. */
    oidc,
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
    helpRequests,
    /** The student pages' domain: a signed-in student's home, own requests and crisis contacts. */
    studentApp: createStudentApp({ db, clock, helpRequests }),
    helpSync: createHelpSyncService(db, clock),
    webhooks,
    /** The webhook delivery worker (not started: `start()` it). */
    webhookWorker: workers.webhook,
    calendar: createCalendarService({ db, clock, policy, feedsPerInstitution }),
    /** The calendar fetch worker (not started). */
    calendarWorker: workers.calendar,
    /** Who is told of help requests by email, and whether email is on (docs/notifications.md). */
    notifications: createNotificationsService({
      db,
      clock,
      email: emailStatusOf(config.smtpUrl, config.smtpFrom),
    }),
    /** The notification email worker (not started). */
    notificationWorker: workers.notification,
    /** Exports, erasures, retention and the access log (docs/privacy.md). */
    privacy: createPrivacyService({ db, clock }),
    /** Response targets, the escalation window and list, and open escalations (src/domain/inbox/). */
    inbox: createInboxService({ db, clock }),
    /** Every background worker of a process: start() them, stop() lets work in flight finish. */
    workers: (logger: WorkerLogger) => workers.all(logger),
    /** Releases what the services opened themselves (not the database, which the caller owns). */
    async close(): Promise<void> {
      await workers.close();
      await runtime.close();
      unregisterMetrics();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
