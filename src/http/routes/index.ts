// Every route module, registered in order. Admin routes sit in a scope that authenticates the
// caller, resolves the institution and authorises the route (plugins/admin-scope.ts);
// integration routes authenticate themselves with their own secrets.

import { consoleRoutes } from '../../console/console.ts';
import { registerPageScope } from '../../console/pages.ts';
import { authRoutes } from '../../console/routes/auth.ts';
import { studentRoutes } from '../../console/student/app.ts';
import type { Services } from '../../services.ts';
import { adminScope } from '../plugins/admin-scope.ts';
import { registerSessionCookies } from '../plugins/session-cookies.ts';
import type { App } from '../types.ts';
import { adminCalendarRoutes } from './admin-calendar.ts';
import { adminCampusRoutes } from './admin-campuses.ts';
import { adminCohortRoutes } from './admin-cohorts.ts';
import { adminCrisisContactRoutes } from './admin-crisis-contacts.ts';
import { adminFullSyncRoutes } from './admin-full-syncs.ts';
import { adminHelpSyncSecretRoutes } from './admin-help-sync-secret.ts';
import { adminHelpdeskRoutes } from './admin-helpdesk.ts';
import { adminInstitutionRoutes } from './admin-institutions.ts';
import { adminMetricsRoutes } from './admin-metrics.ts';
import { adminPeopleRoutes } from './admin-people.ts';
import { adminRunRoutes } from './admin-runs.ts';
import { adminTaxonomyRoutes } from './admin-taxonomy.ts';
import { adminWebhookRoutes } from './admin-webhooks.ts';
import { healthRoutes } from './health.ts';
import { helpSyncRoutes } from './help-sync.ts';
import { sisEnrolmentsRoutes } from './sis-enrolments.ts';
import { sisSyncRoutes } from './sis-sync.ts';

type RouteModule = (app: App, services: Services) => void;

/** HTML pages, authenticated by the session cookie. */
const pageRoutes: RouteModule[] = [authRoutes, consoleRoutes, studentRoutes];

/** Public and integration routes (each authenticates itself). */
const integrationRoutes: RouteModule[] = [healthRoutes, sisSyncRoutes, sisEnrolmentsRoutes, helpSyncRoutes];

/** Admin routes: each declares the access it needs in `config.access`. */
const adminRoutes: RouteModule[] = [
  adminInstitutionRoutes,
  adminCohortRoutes,
  adminPeopleRoutes,
  adminRunRoutes,
  adminCampusRoutes,
  adminFullSyncRoutes,
  adminHelpdeskRoutes,
  adminHelpSyncSecretRoutes,
  adminTaxonomyRoutes,
  adminWebhookRoutes,
  adminMetricsRoutes,
  adminCalendarRoutes,
  adminCrisisContactRoutes,
];

export async function registerRoutes(app: App, services: Services): Promise<void> {
  await registerSessionCookies(app, services);
  for (const routes of integrationRoutes) routes(app, services);
  // Pages (sign-in now, the console later): their own scope, headers and error pages.
  await app.register(async (pages) => {
    await registerPageScope(pages as App, { production: services.config.logLevel !== 'debug' });
    for (const routes of pageRoutes) routes(pages as App, services);
  });
  await app.register(async (scope) => {
    adminScope(scope as App, services);
    for (const routes of adminRoutes) routes(scope as App, services);
  });
}
