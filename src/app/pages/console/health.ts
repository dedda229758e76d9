// Integration health: the first page an admin sees. The last roster and enrolments pushes, held
// departures, both secrets, webhook endpoints failing or disabled, and calendar feeds failing;
// each item links to its page. Staff land on the help-request inbox instead (this page's reads
// are an admin's). The help-sync secret and the endpoints are read only for those holding Manage
// integrations, as the admin API allows.
//
// One page load reads the domains directly with the request's institution: seven queries at once,
// no in-process request.
import { listFeeds } from '../../../domain/calendar/feeds.ts';
import { listFullSyncs } from '../../../domain/departures/departures.ts';
import { emailStatus } from '../../../domain/notifications/email-status.ts';
import { listFailingSources } from '../../../domain/oneroster/pull/sources.ts';
import { latestRetentionRun } from '../../../domain/privacy/retention-settings.ts';
import { integrationChecklist } from '../../../domain/runs/onboarding.ts';
import { listRuns } from '../../../domain/runs/runs.ts';
import { syncSecretStatus } from '../../../domain/secrets/help-sync-secrets.ts';
import { rosterSecretStatus } from '../../../domain/secrets/roster-secrets.ts';
import { listEndpoints } from '../../../domain/webhooks/endpoints.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { escalationAttention, healthView } from './health-view.ts';
import { timesIn } from './institution-time.ts';
import { removedWords } from './privacy-view.ts';

/** The most endpoints and feeds the page reads (an institution has a handful). */
const MOST = 200;

export function healthRoutes(app: App): void {
  app.get(
    '/:slug/',
    { config: { access: 'read' }, schema: { hide: true, params: PageParams } },
    async (request, reply) => {
      const c = ctx(request);
      const institution = institutionOf(request);
      if (!c.may('admin')) return reply.redirect(`/console/${institution.slug}/inbox`, 303);
      const { db, clock } = request.deps;
      const id = institution.id;
      const integrations = c.may('integrations');
      const [
        roster,
        enrolments,
        held,
        rosterSecret,
        syncSecret,
        endpoints,
        feeds,
        failingSources,
        checklist,
        retention,
      ] = await Promise.all([
        listRuns(db, id, { kind: 'roster', limit: 1 }),
        listRuns(db, id, { kind: 'enrolments', limit: 1 }),
        listFullSyncs(db, id, { status: 'held', limit: 20 }),
        rosterSecretStatus(request.deps, id, clock.now()),
        integrations ? syncSecretStatus(db, id) : undefined,
        integrations ? listEndpoints(request.deps, id, { limit: MOST }) : undefined,
        listFeeds(db, id, { limit: MOST, offset: 0 }),
        listFailingSources(db, id),
        integrationChecklist(db, id, clock.now()),
        latestRetentionRun(db, id),
      ]);
      const facts = {
        roster: roster.items[0],
        enrolments: enrolments.items[0],
        held: held.items,
        rosterSecret,
        syncSecret,
        endpoints: endpoints?.items,
        feeds,
        failingSources,
      };
      const view = healthView(facts, institution.slug, clock.now(), timesIn(institution.time_zone));
      const escalated = escalationAttention(
        request.escalations,
        institution.slug,
        timesIn(institution.time_zone),
      );
      return c.render('console/health.eta', {
        ...view,
        attention: escalated ? [escalated, ...view.attention] : view.attention,
        // Whether notification emails are sent (SMTP_URL): the Notifications card says so.
        notificationsOn: emailStatus(request.deps.config).enabled,
        checklist,
        // What the last retention run removed (docs/privacy.md).
        retention,
        removedWords,
      });
    },
  );
}
