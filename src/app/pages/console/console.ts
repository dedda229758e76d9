// The console at /console/: the staff web app over the admin API.
//
// Its scope resolves the session on every request (not signed in: to sign-in and back; a
// student: to the student pages), resolves the institution a `/console/{slug}/...` URL names and
// answers another tenant's URL with the not-found page (the domain policy's tenancy rule). What a
// role may see or do is decided by the admin API each page calls (see api.ts), never here; the
// navigation only hides what the same policy would refuse. Every failure is a page: the API's
// error code and detail, never a stack trace.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Access, authorize, type Caller, grants } from '../../../domain/access/policy.ts';
import type { Institution } from '../../../domain/institutions/service.ts';
import type { Services } from '../../../services.ts';
import { toApiError } from '../../context/errors.ts';
import { csrfToken, requireCsrf, sessionCookies } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';
import { ApiRefusal, type ConsoleApi, consoleApi } from './api.ts';
import { calendarFeedRoutes } from './calendar-feeds.ts';
import { cohortRoutes } from './cohorts.ts';
import { crisisContactRoutes } from './crisis-contacts.ts';
import { dataCampusRoutes } from './data-campuses.ts';
import { dataStudentPageRoutes } from './data-student.ts';
import { dataStudentRoutes } from './data-students.ts';
import { dataTaxonomyRoutes } from './data-taxonomy.ts';
import { fullSyncRoutes } from './full-syncs.ts';
import { healthRoutes } from './health.ts';
import { inboxRoutes } from './inbox.ts';
import { operatorRoutes } from './operator.ts';
import { peopleRoutes } from './people.ts';
import { runRoutes } from './runs.ts';
import { secretRoutes } from './secrets.ts';
import { webhookRoutes } from './webhooks.ts';

/** What every console page handler gets. */
export interface ConsoleContext {
  caller: Exclude<Caller, { kind: 'student' }>;
  /** The institution the URL names (undefined on /console/ and the operator's pages). */
  institution?: Institution;
  api: ConsoleApi;
  /** Renders a console page inside the layout with the navigation. */
  render(template: string, data: Record<string, unknown>, status?: number): FastifyReply;
  /** The CSRF token for forms on this page. */
  csrf: string;
  /** Whether the caller's role grants an access level (for showing links and buttons only). */
  may(access: Access): boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    console?: ConsoleContext;
  }
}

type PageModule = (app: App, services: Services) => void;
const pages: PageModule[] = [
  operatorRoutes,
  healthRoutes,
  secretRoutes,
  peopleRoutes,
  inboxRoutes,
  runRoutes,
  webhookRoutes,
  fullSyncRoutes,
  calendarFeedRoutes,
  crisisContactRoutes,
  cohortRoutes,
  dataStudentRoutes,
  dataStudentPageRoutes,
  dataTaxonomyRoutes,
  dataCampusRoutes,
];

/** The console's context of a request inside its scope. */
export function ctx(request: FastifyRequest): ConsoleContext {
  if (!request.console) throw new Error('ctx: the request did not pass the console scope');
  return request.console;
}

/** The institution of an institution page. */
export function institutionOf(request: FastifyRequest): Institution {
  const institution = ctx(request).institution;
  if (!institution) throw new Error('institutionOf: the route names no institution');
  return institution;
}

interface NavLink {
  href: string;
  label: string;
  current: boolean;
}

/** A link, or a labelled group of links (the layout nests a group's links under its label). */
type NavItem = NavLink | { group: string; items: NavLink[] };

function navigation(path: string, caller: ConsoleContext['caller'], institution?: Institution): NavItem[] {
  const may = (access: Access) => caller.kind === 'operator' || grants(caller, access);
  const items: { href: string; label: string; show: boolean; group?: string }[] = [];
  if (caller.kind === 'operator') items.push({ href: '/console/', label: 'Institutions', show: true });
  if (institution) {
    const base = `/console/${institution.slug}`;
    items.push(
      { href: `${base}/`, label: 'Integration health', show: may('admin') },
      { href: `${base}/inbox`, label: 'Help requests', show: may('helpdesk') },
      { href: `${base}/runs`, label: 'Push history', show: may('admin') },
      { href: `${base}/full-syncs`, label: 'Full syncs', show: may('admin') },
      { href: `${base}/secrets`, label: 'Secrets', show: may('admin') },
      { href: `${base}/webhooks`, label: 'Webhooks', show: may('integrations') },
      { href: `${base}/people`, label: 'People', show: may('admin') },
      // What students see: the calendar feeds, the crisis path's contacts, cohort start dates.
      { href: `${base}/calendar-feeds`, label: 'Calendar feeds', show: may('admin') },
      { href: `${base}/crisis-contacts`, label: 'Crisis contacts', show: may('admin') },
      { href: `${base}/cohorts`, label: 'Cohorts', show: may('admin') },
    );
    // What the SIS pushed, read through the API's listings (staff and admins may read them).
    for (const [path, label] of [
      ['students', 'Students'],
      ['programs', 'Programs'],
      ['campuses', 'Campuses'],
      ['terms', 'Terms'],
      ['units', 'Units'],
      ['enrolments', 'Enrolments'],
    ])
      items.push({ href: `${base}/${path}`, label, show: may('read'), group: 'Data' });
  }
  const visible = items.filter((item) => item.show);
  // The longest matching prefix is the current page (the health page's `/` matches everything).
  const current = visible
    .filter(
      (item) =>
        path === item.href || (item.href.endsWith('/') ? path === item.href : path.startsWith(item.href)),
    )
    .sort((a, b) => b.href.length - a.href.length)[0];
  const nav: NavItem[] = [];
  for (const { href, label, group } of visible) {
    const link = { href, label, current: href === current?.href };
    if (!group) {
      nav.push(link);
      continue;
    }
    const last = nav.at(-1);
    if (last && 'group' in last && last.group === group) last.items.push(link);
    else nav.push({ group, items: [link] });
  }
  return nav;
}

/** Messages shown after a change, named by the `done` query parameter of the redirect. */
const notices: Record<string, string> = {
  institution_created: 'The institution was created. Invite its first admin from People.',
  roster_secret_revoked:
    'The roster secret was revoked: the roster feed is closed until a new secret is issued.',
  sync_secret_revoked: 'The help-sync secret was revoked.',
  person_invited: 'The person was invited. They sign in through the institution’s identity provider.',
  person_updated: 'The changes were saved; they apply from the person’s next request.',
  person_removed: 'The person was removed and their sessions ended.',
  sessions_ended: 'Their sessions were ended.',
  provider_saved: 'The identity provider settings were saved.',
  status_changed: 'The status was changed.',
  note_added: 'The note was added.',
  assignment_changed: 'The assignment was changed.',
  no_change: 'Nothing changed: the request already had that value.',
  departures_confirmed: 'The departures were applied.',
  departures_discarded: 'The departures were discarded: nobody was departed.',
  webhook_updated: 'The event types were saved.',
  webhook_enabled: 'The endpoint was enabled.',
  webhook_disabled:
    'The endpoint was disabled: its pending deliveries are marked failed and can be replayed.',
  webhook_test_sent: 'A test event was queued for this endpoint; it appears in the delivery log.',
  webhook_redelivered: 'The event was queued to be delivered again.',
  webhook_replayed: 'The failed deliveries were queued again.',
  calendar_feed_added:
    'The calendar feed was added: the worker fetches it on its next round, or use Fetch now.',
  calendar_feed_updated: 'The calendar feed was saved.',
  calendar_feed_deleted: 'The calendar feed was deleted, with its events and fetch history.',
  crisis_contacts_saved: 'The crisis contacts were saved; students see them from now on.',
  cohort_created: 'The cohort was created.',
  cohort_updated: 'The cohort was saved.',
  time_zone_saved: "The time zone was saved: students' days are counted in it from now on.",
  campuses_merged:
    'The campuses were merged: the old name is kept as an alias, so later pushes naming it match the campus that stayed.',
};

function noticeOf(request: FastifyRequest): string | undefined {
  const done = (request.query as { done?: unknown } | undefined)?.done;
  return typeof done === 'string' ? notices[done] : undefined;
}

function errorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
): FastifyReply {
  const context = request.console;
  const data = {
    title: status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something went wrong',
    status,
    code,
    message,
    requestId: request.id,
  };
  reply.header('cache-control', 'no-store');
  if (context && status !== 404) return context.render('console/error.eta', data, status);
  // A not-found page names no institution: the URL may point at one the caller may not know of.
  return reply.status(status).page('console/error.eta', { ...data, nav: [], signedIn: Boolean(context) });
}

/** Vendor scripts and styles served from node_modules: nothing is loaded from another host. */
function vendorRoutes(app: App): void {
  const require = createRequire(import.meta.url);
  const files: Record<string, { path: string; type: string }> = {
    'htmx.min.js': { path: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript' },
    'uPlot.iife.min.js': { path: require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript' },
    'uPlot.min.css': { path: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css' },
  };
  const loaded = Object.fromEntries(
    Object.entries(files).map(([name, file]) => [name, { body: readFileSync(file.path), type: file.type }]),
  );
  for (const [name, file] of Object.entries(loaded)) {
    app.get(`/assets/vendor/${name}`, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type(`${file.type}; charset=utf-8`)
        .header('cache-control', 'public, max-age=86400')
        .send(file.body),
    );
  }
}

export function consoleRoutes(app: App, services: Services): void {
  vendorRoutes(app);
  const cookies = sessionCookies(services.config.publicBaseUrl);

  app.register(
    async (scope) => {
      const consoleScope = scope as App;

      consoleScope.addHook('onRequest', async (request, reply) => {
        const caller = await services.sessions.authenticate(cookies.read(request));
        const slug = (request.params as { slug?: unknown }).slug;
        if (!caller) {
          const back = encodeURIComponent(request.url);
          const to =
            typeof slug === 'string' && /^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)
              ? `/auth/${slug}/sign-in?return_to=${back}`
              : `/auth/sign-in?return_to=${back}`;
          return reply.header('cache-control', 'no-store').redirect(to, 303);
        }
        if (caller.kind === 'student') return reply.redirect('/app/', 303);
        request.caller = caller;
        let institution: Institution | undefined;
        if (typeof slug === 'string') {
          institution = await services.institutions.requireBySlug(slug);
          // Tenancy only: another institution's URL is the same not-found page as an unknown one.
          authorize(caller, 'self', institution);
        }
        const api = consoleApi(app, request, reply);
        let token: string | undefined;
        const path = request.url.split('?')[0];
        request.console = {
          caller,
          institution,
          api,
          get csrf() {
            token ??= csrfToken(request, reply) ?? '';
            return token;
          },
          may: (access) => caller.kind === 'operator' || grants(caller, access),
          render(template, data, status = 200) {
            return reply
              .status(status)
              .header('cache-control', 'no-store')
              .page(template, {
                ...data,
                signedIn: true,
                actor: caller.actor,
                role: caller.kind === 'operator' ? 'operator' : caller.roles.join(', '),
                institution,
                nav: navigation(path, caller, institution),
                csrf: request.console?.csrf,
                notice: noticeOf(request),
              });
          },
        };
      });
      // Form posts carry the `_csrf` field; checked once the body is parsed.
      consoleScope.addHook('preValidation', requireCsrf(app));

      consoleScope.setErrorHandler((error, request, reply) => {
        if (error instanceof ApiRefusal) {
          return errorPage(request, reply, error.status, error.problem.error, error.problem.detail ?? '');
        }
        const apiError = toApiError(error);
        if (apiError && apiError.status < 500) {
          const detail = String(apiError.extra.detail ?? 'The request could not be read.');
          return errorPage(request, reply, apiError.status, apiError.code, detail);
        }
        request.log.error({ err: error }, 'console page failed');
        return errorPage(
          request,
          reply,
          500,
          'internal_error',
          'The page could not be shown. Try again in a minute.',
        );
      });
      consoleScope.setNotFoundHandler(async (request, reply) =>
        errorPage(request, reply, 404, 'not_found', 'There is no page at this address.'),
      );

      for (const routes of pages) routes(consoleScope, services);
    },
    { prefix: '/console' },
  );
}
