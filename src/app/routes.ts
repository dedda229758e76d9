// Every route module, registered in order. Admin routes sit in a scope that authenticates the
// caller, resolves the institution and authorises the route (plugins/admin-scope.ts);
// integration routes authenticate themselves with their own secrets.

import type { Services } from '../services.ts';
import { adminCalendarRoutes } from './api/admin/calendar.ts';
import { adminCampusRoutes } from './api/admin/campuses.ts';
import { adminCohortRoutes } from './api/admin/cohorts.ts';
import { adminCrisisContactRoutes } from './api/admin/crisis-contacts.ts';
import { adminFullSyncRoutes } from './api/admin/full-syncs.ts';
import { adminHelpSyncSecretRoutes } from './api/admin/help-sync-secret.ts';
import { adminHelpdeskRoutes } from './api/admin/helpdesk.ts';
import { adminInstitutionRoutes } from './api/admin/institutions.ts';
import { adminMetricsRoutes } from './api/admin/metrics.ts';
import { adminPeopleRoutes } from './api/admin/people.ts';
import { adminRunRoutes } from './api/admin/runs.ts';
import { adminTaxonomyRoutes } from './api/admin/taxonomy.ts';
import { adminWebhookRoutes } from './api/admin/webhooks.ts';
import { helpSyncRoutes } from './api/feeds/help-sync.ts';
import { sisEnrolmentsRoutes } from './api/feeds/sis-enrolments.ts';
import { sisSyncRoutes } from './api/feeds/sis-sync.ts';
import { healthRoutes } from './api/health.ts';
import { adminScope } from './context/admin-scope.ts';
import { registerSessionCookies } from './context/session-cookies.ts';
import { consoleRoutes } from './pages/console/console.ts';
import { registerPageScope } from './pages/page-scope.ts';
import { authRoutes } from './pages/sign-in/routes.ts';
import { studentRoutes } from './pages/student/routes.ts';
import type { App } from './types.ts';

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
