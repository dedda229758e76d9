// Integration health: the first page an admin sees. The last roster and enrolments pushes, held
// departures, both secrets, webhook endpoints failing or disabled, and calendar feeds failing;
// each item links to its page. Staff land on the help-request inbox instead (this page's reads are admin-only).
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { type Feed, feedState } from './calendar-feeds.ts';
import { ctx, institutionOf } from './context.ts';
import { when } from './forms.ts';

const DAY_MS = 86_400_000;

interface Run {
  id: string;
  kind: string;
  received: number;
  counts: Record<string, unknown>;
  error_count: number;
  finished_at: string;
  details?: Record<string, unknown>;
}

export function healthRoutes(app: App, services: Services): void {
  app.get(
    '/:slug/',
    { config: { access: 'read' }, schema: { hide: true, params: Type.Object({ slug: Type.String() }) } },
    async (request, reply) => {
      const c = ctx(request);
      const institution = institutionOf(request);
      if (!c.may('admin')) return reply.redirect(`/console/${institution.slug}/inbox`, 303);
      const base = `/admin/v1/institutions/${institution.slug}`;
      const [roster, enrolments, held, rosterSecret, syncSecret, endpoints, feeds] = await Promise.all([
        c.api.get<{ items: Run[] }>(`${base}/runs?kind=roster&limit=1`),
        c.api.get<{ items: Run[] }>(`${base}/runs?kind=enrolments&limit=1`),
        c.api.get<{ items: Record<string, unknown>[] }>(`${base}/full-syncs?status=held&limit=20`),
        c.api.get<{ state: string; issued_at?: string; rotate_by?: string; revoked_at?: string }>(
          `${base}/roster-secret`,
        ),
        c.api.tryGet<{ state: string; issued_at?: string }>(`${base}/help-sync-secret`),
        c.api.tryGet<{ items: Record<string, unknown>[] }>(`${base}/webhook-endpoints?limit=200`),
        c.api.get<{ items: Feed[] }>(`${base}/calendar-feeds?limit=200`),
      ]);
      const now = services.clock.now().getTime();
      const rotateBy = rosterSecret.rotate_by ? new Date(rosterSecret.rotate_by).getTime() : undefined;
      const rotationDays = rotateBy === undefined ? undefined : Math.floor((rotateBy - now) / DAY_MS);
      // The API's reasons read "disabled by an administrator", "410 Gone", ...: said once.
      const troubled = (endpoints?.items ?? [])
        .filter((e) => !e.enabled || e.failing_since)
        .map((e) => {
          const reason = String(e.disabled_reason ?? 'no reason given');
          const state = e.enabled
            ? `failing since ${when(e.failing_since)}`
            : reason.startsWith('disabled')
              ? reason
              : `disabled: ${reason}`;
          return { ...e, state } as Record<string, unknown> & { state: string };
        });
      const attention: { text: string; href?: string }[] = [];
      const pushes = [roster.items[0], enrolments.items[0]].filter(Boolean);
      for (const run of pushes) {
        if (run.error_count > 0)
          attention.push({
            text: `The last ${run.kind} push had ${run.error_count} row error${run.error_count === 1 ? '' : 's'}`,
            href: `/console/${institution.slug}/runs/${run.id}`,
          });
      }
      if (held.items.length > 0)
        attention.push({
          text: `${held.items.length} full sync${held.items.length === 1 ? '' : 's'} with held departures ${held.items.length === 1 ? 'waits' : 'wait'} for a decision`,
          href: `/console/${institution.slug}/full-syncs`,
        });
      if (rosterSecret.state !== 'active')
        attention.push({
          text: `The roster secret is ${rosterSecret.state.replace('_', ' ')}`,
          href: `/console/${institution.slug}/secrets`,
        });
      else if (rotationDays !== undefined && rotationDays <= 14)
        attention.push({
          text:
            rotationDays < 0
              ? 'The roster secret is past its rotation date'
              : `The roster secret is due for rotation in ${rotationDays} days`,
          href: `/console/${institution.slug}/secrets`,
        });
      for (const endpoint of troubled)
        attention.push({
          text: `Webhook endpoint ${endpoint.url}: ${endpoint.state}`,
          href: `/console/${institution.slug}/webhooks/${endpoint.id}`,
        });
      const failingFeeds = feeds.items
        .filter((f) => f.health === 'failing')
        .map((f) => ({ ...f, label: f.name ?? f.url, state: feedState(f) }));
      for (const feed of failingFeeds)
        attention.push({
          text: `Calendar feed ${feed.label}: ${feed.state}`,
          href: `/console/${institution.slug}/calendar-feeds/${feed.id}`,
        });
      return c.render('console/health.eta', {
        title: 'Integration health',
        attention,
        pushes: [
          { label: 'Roster', run: roster.items[0] },
          { label: 'Enrolments', run: enrolments.items[0] },
        ],
        held: held.items,
        rosterSecret,
        rotationDays,
        syncSecret,
        endpoints: endpoints?.items,
        troubled,
        feeds: feeds.items,
        failingFeeds,
        notificationsOn: services.notifications.email.enabled,
        when,
      });
    },
  );
}
