// Composition root of the HTTP application: binds the domain to one runtime (src/runtime.ts:
// database, clock, configuration, keyring, the OIDC client and Redis opened on first use) for the
// route files. Shrinking: routes that import the area's functions read `request.deps` instead.
import { createCalendarService } from './domain/calendar/service.ts';
import { createHelpRequestsService } from './domain/helpdesk/service.ts';
import { createHelpSyncService } from './domain/helpdesk/sync.ts';
import { createInboxService } from './domain/inbox/service.ts';
import { createNotificationsService, emailStatusOf } from './domain/notifications/service.ts';
import type { PullMode } from './domain/oneroster/pull/pull.ts';
import { pullStatus, requestPull } from './domain/oneroster/pull/requests.ts';
import { createOneRosterSources } from './domain/oneroster/pull/sources.ts';
import { createStudentApp } from './domain/students/service.ts';
import { createWebhooksService } from './domain/webhooks/service.ts';
import {
  createRuntime,
  createWorkers,
  type PullOverrides,
  pullDepsOf,
  type RuntimeOptions,
} from './runtime.ts';
import { registerDatabaseMetrics } from './workers/metrics.ts';
import type { WorkerLogger } from './workers/webhook-delivery.ts';

export interface ServiceDeps extends RuntimeOptions {
  /** OneRoster pulls: limits, waits and DNS a test changes (everything else is built here). */
  oneRosterPull?: PullOverrides;
}

export function createServices(options: ServiceDeps) {
  const runtime = createRuntime(options);
  const { db, config, clock, keyring, policy } = runtime;
  const feedsPerInstitution = config.calendarFeedsPerInstitution;
  const webhooks = createWebhooksService({ db, clock, policy, keyring });
  const helpRequests = createHelpRequestsService(db, clock);
  const oneRosterPull = pullDepsOf(runtime, options.oneRosterPull);
  const { rosterSync, taxonomy } = oneRosterPull;
  const workers = createWorkers(runtime, oneRosterPull);
  const unregisterMetrics = registerDatabaseMetrics(db, clock); // what GET /metrics reads

  return {
    /** The process's dependencies, which routes read as `request.deps`. */
    deps: runtime,
    db,
    config,
    clock,
    keyring,
    helpRequests,
    /** The student pages' domain: a signed-in student's home, own requests and crisis contacts. */
    studentApp: createStudentApp({ db, clock, helpRequests }),
    helpSync: createHelpSyncService(db, clock),
    taxonomy,
    webhooks,
    rosterSync,
    /** The webhook delivery worker (not started: `start()` it). */
    webhookWorker: workers.webhook,
    calendar: createCalendarService({ db, clock, policy, feedsPerInstitution }),
    /** The calendar fetch worker (not started). */
    calendarWorker: workers.calendar,
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
        workers.wakeOneRoster();
        return asked;
      },
      status: (institutionId: string, runId: string) => pullStatus(oneRosterPull, institutionId, runId),
    },
    /** The OneRoster pull worker (not started). */
    oneRosterWorker: workers.oneRoster,
    /** Who is told of help requests by email, and whether email is on (docs/notifications.md). */
    notifications: createNotificationsService({
      db,
      clock,
      email: emailStatusOf(config.smtpUrl, config.smtpFrom),
    }),
    /** The notification email worker (not started). */
    notificationWorker: workers.notification,
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
