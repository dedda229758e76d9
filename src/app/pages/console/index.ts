// The console at /console/: the staff web app. Each page module registers its pages with the
// access they need (`config.access`, decided by the request context) and builds its view from the
// domain; this file only puts them on the console's surface.
import type { Eta } from 'eta';
import type { App } from '../../types.ts';
import { registerSurface } from '../page-scope.ts';
import { auditRoutes } from './audit.ts';
import { calendarFeedRoutes } from './calendar-feeds.ts';
import { cohortRoutes } from './cohorts.ts';
import { consoleContextHook, consoleSurface } from './context.ts';
import { crisisContactRoutes } from './crisis-contacts.ts';
import { dataCampusRoutes } from './data-campuses.ts';
import { dataStudentPageRoutes } from './data-student.ts';
import { dataStudentRoutes } from './data-students.ts';
import { dataTaxonomyRoutes } from './data-taxonomy.ts';
import { refuseUnknownFormFields } from './form-fields.ts';
import { fullSyncRoutes } from './full-syncs.ts';
import { healthRoutes } from './health.ts';
import { helpSyncReplyRoutes } from './help-sync-replies.ts';
import { inboxRoutes } from './inbox.ts';
import { notificationRoutes } from './notifications.ts';
import { oneRosterSourceRoutes } from './oneroster-source.ts';
import { operatorRoutes } from './operator.ts';
import { peopleRoutes } from './people.ts';
import { accessLogRoutes, privacyRoutes } from './privacy.ts';
import { responseTargetRoutes } from './response-targets.ts';
import { runRoutes } from './runs.ts';
import { savedReplyRoutes } from './saved-replies.ts';
import { secretRoutes } from './secrets.ts';
import { webhookPortalRoutes } from './webhook-portal.ts';
import { webhookRoutes } from './webhooks.ts';

type PageModule = (app: App) => void;
const pages: PageModule[] = [
  operatorRoutes,
  healthRoutes,
  secretRoutes,
  peopleRoutes,
  inboxRoutes,
  runRoutes,
  webhookPortalRoutes,
  webhookRoutes,
  oneRosterSourceRoutes,
  fullSyncRoutes,
  calendarFeedRoutes,
  crisisContactRoutes,
  notificationRoutes,
  savedReplyRoutes,
  helpSyncReplyRoutes,
  responseTargetRoutes,
  cohortRoutes,
  dataStudentRoutes,
  dataStudentPageRoutes,
  dataTaxonomyRoutes,
  dataCampusRoutes,
  auditRoutes,
  privacyRoutes,
  accessLogRoutes,
];

export async function registerConsole(parent: App, engine: Eta): Promise<void> {
  await registerSurface(parent, engine, consoleSurface(), (scope) => {
    scope.addHook('preHandler', consoleContextHook());
    refuseUnknownFormFields(scope);
    for (const routes of pages) routes(scope);
  });
}
