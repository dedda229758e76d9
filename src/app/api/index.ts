// The JSON API: liveness and readiness, the three feeds (each authenticated by its own secret,
// `access: 'feed'`), and the admin API under /admin/v1 (each route declaring its access, decided
// by the request context). Routes are thin: they parse, call the domain, and shape the reply.
import type { Deps } from '../../domain/deps.ts';
import type { App } from '../types.ts';
import { adminAuditRoutes } from './admin/audit.ts';
import { adminCalendarRoutes } from './admin/calendar.ts';
import { adminCampusRoutes } from './admin/campuses.ts';
import { adminCohortRoutes } from './admin/cohorts.ts';
import { adminCrisisContactRoutes } from './admin/crisis-contacts.ts';
import { adminEventRoutes } from './admin/events.ts';
import { adminFullSyncRoutes } from './admin/full-syncs.ts';
import { adminHelpRequestChangeRoutes } from './admin/help-request-changes.ts';
import { adminHelpRequestRoutes } from './admin/help-requests.ts';
import { adminHelpSyncSecretRoutes } from './admin/help-sync-secret.ts';
import { adminHelpSyncSettingsRoutes } from './admin/help-sync-settings.ts';
import { adminIdentityProviderRoutes } from './admin/identity-providers.ts';
import { adminInboxSettingsRoutes } from './admin/inbox-settings.ts';
import { adminInstitutionRoutes } from './admin/institutions.ts';
import { adminMeRoutes } from './admin/me.ts';
import { adminMetricsRoutes } from './admin/metrics.ts';
import { adminNotificationRoutes } from './admin/notifications.ts';
import { adminOneRosterSourceRoutes } from './admin/oneroster-source.ts';
import { adminOperatorRoutes } from './admin/operators.ts';
import { adminPeopleRoutes } from './admin/people.ts';
import { adminPrivacyRoutes } from './admin/privacy.ts';
import { adminRunRoutes } from './admin/runs.ts';
import { adminSavedReplyRoutes } from './admin/saved-replies.ts';
import { adminTaxonomyRoutes } from './admin/taxonomy.ts';
import { adminWebhookDeliveryRoutes } from './admin/webhook-deliveries.ts';
import { adminWebhookEndpointRoutes } from './admin/webhook-endpoints.ts';
import { refuseUnknownBodyFields } from './body-fields.ts';
import { helpSyncRoutes } from './feeds/help-sync.ts';
import { oneRosterMemoryRoutes } from './feeds/oneroster-memory.ts';
import { sisEnrolmentsRoutes } from './feeds/sis-enrolments.ts';
import { sisSyncRoutes } from './feeds/sis-sync.ts';
import { healthRoutes } from './health.ts';
import { acceptOmittedBodies } from './optional-body.ts';
import { refuseUnknownParameters } from './query-parameters.ts';

type RouteModule = (app: App) => void;

/**
 * The route modules, in the order the OpenAPI document lists them. Each reads `request.deps`; the
 * feeds' rate limits are the configuration's, read once as they are registered.
 */
const routeModules = ({ config }: Pick<Deps, 'config'>): RouteModule[] => [
  healthRoutes,
  (app) => sisSyncRoutes(app, { config }),
  (app) => sisEnrolmentsRoutes(app, { config }),
  oneRosterMemoryRoutes,
  (app) => helpSyncRoutes(app, { config }),
  adminInstitutionRoutes,
  adminCohortRoutes,
  adminMeRoutes,
  adminPeopleRoutes,
  adminIdentityProviderRoutes,
  adminOperatorRoutes,
  adminAuditRoutes,
  adminRunRoutes,
  adminCampusRoutes,
  adminFullSyncRoutes,
  adminHelpRequestRoutes,
  adminHelpRequestChangeRoutes,
  adminEventRoutes,
  adminHelpSyncSecretRoutes,
  adminHelpSyncSettingsRoutes,
  adminSavedReplyRoutes,
  adminTaxonomyRoutes,
  adminWebhookEndpointRoutes,
  adminWebhookDeliveryRoutes,
  adminMetricsRoutes,
  adminCalendarRoutes,
  adminCrisisContactRoutes,
  adminOneRosterSourceRoutes,
  adminNotificationRoutes,
  adminPrivacyRoutes,
  adminInboxSettingsRoutes,
];

export async function registerApi(app: App, deps: Pick<Deps, 'config'>): Promise<void> {
  await app.register(async (scope) => {
    refuseUnknownParameters(scope as App);
    refuseUnknownBodyFields(scope as App);
    acceptOmittedBodies(scope as App);
    for (const routes of routeModules(deps)) routes(scope as App);
  });
}
