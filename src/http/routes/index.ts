// Every route module, registered in order. Admin routes sit in a scope that requires the
// operator token; integration routes authenticate themselves with their own secrets.
import type { Services } from '../../services.ts';
import { requireOperator } from '../plugins/operator-auth.ts';
import type { App } from '../types.ts';
import { adminCalendarRoutes } from './admin-calendar.ts';
import { adminCampusRoutes } from './admin-campuses.ts';
import { adminFullSyncRoutes } from './admin-full-syncs.ts';
import { adminHelpdeskRoutes } from './admin-helpdesk.ts';
import { adminInstitutionRoutes } from './admin-institutions.ts';
import { adminRunRoutes } from './admin-runs.ts';
import { adminTaxonomyRoutes } from './admin-taxonomy.ts';
import { adminWebhookRoutes } from './admin-webhooks.ts';
import { healthRoutes } from './health.ts';
import { helpSyncRoutes } from './help-sync.ts';
import { sisEnrolmentsRoutes } from './sis-enrolments.ts';
import { sisSyncRoutes } from './sis-sync.ts';

type RouteModule = (app: App, services: Services) => void;

/** Public and integration routes (each authenticates itself). */
const integrationRoutes: RouteModule[] = [healthRoutes, sisSyncRoutes, sisEnrolmentsRoutes, helpSyncRoutes];

/** Operator/admin routes: the operator token is checked before any of them runs. */
const adminRoutes: RouteModule[] = [
  adminInstitutionRoutes,
  adminRunRoutes,
  adminCampusRoutes,
  adminFullSyncRoutes,
  adminHelpdeskRoutes,
  adminTaxonomyRoutes,
  adminWebhookRoutes,
  adminCalendarRoutes,
];

export async function registerRoutes(app: App, services: Services): Promise<void> {
  for (const routes of integrationRoutes) routes(app, services);
  await app.register(async (scope) => {
    requireOperator(scope as App, services);
    for (const routes of adminRoutes) routes(scope as App, services);
  });
}
