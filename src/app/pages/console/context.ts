// What every console page handler gets: the caller and institution the request context
// resolved, rendering inside the console's layout (navigation, who is signed in, the CSRF token,
// the notice of a change just made), and `may` for showing only the links and buttons the access
// policy would allow. Access itself is decided once per request by the request context, from each
// route's `config.access`; a page never decides it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type Access, grants } from '../../../domain/access/policy.ts';
import { openEscalations } from '../../../domain/inbox/escalation.ts';
import type { OpenEscalation } from '../../../domain/inbox/model.ts';
import type { Institution } from '../../../domain/institutions/schemas.ts';
import { csrfToken } from '../../context/session-cookies.ts';
import { type Surface, signInFor } from '../page-scope.ts';
import { withoutArchivedForms } from './archived-forms.ts';
import { timesIn } from './institution-time.ts';
import { navigation, type StaffCaller } from './navigation.ts';

export interface ConsoleContext {
  caller: StaffCaller;
  /** The institution the URL names (undefined on /console/ and the operator's pages). */
  institution?: Institution;
  /** Renders a console page inside the layout with the navigation. */
  render(template: string, data: Record<string, unknown>, status?: number): FastifyReply;
  /** The CSRF token for forms on this page. */
  csrf: string;
  /** Whether the caller's role grants an access level (for showing links and buttons only). */
  may(access: Access): boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A fragment of a page, put in place by the page's own script (the inbox's live rows): no
     * layout, so no escalation banner to read for it.
     */
    fragment?: boolean;
  }
  interface FastifyRequest {
    console?: ConsoleContext;
    /** The institution's escalated crisis requests nobody picked up (the banner on every page). */
    escalations?: { total: number; requests: OpenEscalation[] };
  }
}

/** The console's context of a request (built once, on first use). */
export function ctx(request: FastifyRequest): ConsoleContext {
  if (!request.console) throw new Error('ctx: the request did not pass the console scope');
  return request.console;
}

/** The institution of an institution page: the one the request context resolved. */
export { institutionOf } from '../../context/request-context.ts';

/** The path parameters of an institution's page (/:slug/…), and of one thing on it (/:slug/…/:id). */
export const PageParams = Type.Object({ slug: Type.String() });
export const ItemPageParams = Type.Object({ slug: Type.String(), id: Type.String() });

const may = (caller: StaffCaller, access: Access) => caller.kind === 'operator' || grants(caller, access);

/** Messages shown after a change, named by the `done` query parameter of the redirect. */
const notices: Record<string, string> = {
  institution_created: 'The institution was created. Invite its first admin from People.',
  institution_archived:
    'The institution was archived: its pushes are refused and its background work stopped. Nothing was deleted.',
  institution_restored: 'The institution was restored: pushes, changes and its background work resume.',
  cohort_archived: 'The cohort was archived: pushes naming it are refused. Its students stay.',
  cohort_restored: 'The cohort was restored: pushes naming it are accepted again.',
  roster_secret_revoked:
    'The roster secret was revoked: the roster feed is closed until a new secret is issued.',
  sync_secret_revoked: 'The help-sync secret was revoked.',
  person_invited:
    'The person was invited and emailed a link to sign in. They sign in through the institution’s identity provider.',
  person_updated: 'The changes were saved; they apply from the person’s next request.',
  person_removed: 'The person was removed and their sessions ended.',
  sessions_ended: 'Their sessions were ended.',
  provider_saved: 'The identity provider settings were saved.',
  provider_confirmed:
    'The issuer was confirmed: people who existed before the change link to it at their next sign-in.',
  status_changed: 'The status was changed.',
  note_added: 'The internal note was added. Only staff see it.',
  reply_sent: 'The reply was sent. The student reads it on their request’s page and is told by email.',
  saved_reply_created: 'The saved reply was added. Staff can insert it into replies from now on.',
  saved_reply_updated: 'The saved reply was saved.',
  saved_reply_deleted: 'The saved reply was deleted.',
  help_sync_replies_saved: 'The help-sync reply setting was saved.',
  assignment_changed: 'The assignment was changed.',
  no_change: 'Nothing changed: the request already had that value.',
  departures_confirmed: 'The departures were applied.',
  departures_discarded: 'The departures were discarded: nobody was departed.',
  webhook_updated: 'The event types were saved.',
  webhook_enabled: 'The endpoint was enabled.',
  webhook_disabled:
    'The endpoint was disabled: its pending deliveries are marked failed and can be replayed.',
  webhook_deleted: 'The endpoint was deleted, with its deliveries and attempt log.',
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
  student_erased:
    'The student was erased: their record and personal data are gone; their requests stay, without their words.',
  retention_saved: 'The retention periods were saved; the next retention run applies them.',
  campuses_merged:
    'The campuses were merged: the old name is kept as an alias, so later pushes naming it match the campus that stayed.',
};

function noticeOf(request: FastifyRequest): string | undefined {
  const done = (request.query as { done?: unknown } | undefined)?.done;
  return typeof done === 'string' ? notices[done] : undefined;
}

/** The CSRF token of the request's session, generated once per request. */
function csrfOf(request: FastifyRequest, reply: FastifyReply): string {
  const cached = (request as { consoleCsrf?: string }).consoleCsrf;
  if (cached !== undefined) return cached;
  const token = csrfToken(request, reply) ?? '';
  (request as { consoleCsrf?: string }).consoleCsrf = token;
  return token;
}

/** The console as a page surface (src/app/pages/page-scope.ts). */
export function consoleSurface(): Surface {
  return {
    prefix: '/console',
    layout: 'layout.eta',
    errorTemplate: 'console/error.eta',
    failure: {
      status: 500,
      code: 'internal_error',
      message: 'The page could not be shown. Try again in a minute.',
    },
    frame(request, reply) {
      const caller = request.caller;
      if (!caller || caller.kind === 'student') return { signedIn: false, nav: [] };
      const institution = request.institution;
      return {
        signedIn: true,
        actor: caller.actor,
        role: caller.kind === 'operator' ? 'operator' : caller.roles.join(', '),
        institution,
        nav: navigation(request.url.split('?')[0], caller, institution),
        csrf: csrfOf(request, reply),
        notice: noticeOf(request),
        escalations: request.escalations,
      };
    },
    // Every time the console shows is in the institution's zone, the zone named (the operator's
    // pages of no institution: UTC).
    helpers: (request) => {
      const zone = request.institution?.time_zone ?? 'UTC';
      return { when: timesIn(zone), zone };
    },
    // An archived institution's pages offer no change that can only be refused.
    transform: (request, html) =>
      request.institution?.archived_at ? withoutArchivedForms(html, request.institution.slug) : html,
    // A not-found page names no institution: the URL may point at one the caller may not know of.
    // A change refused because the institution is archived says so in its title (docs/archiving.md).
    errorData: (_request, failure) =>
      failure.status === 404
        ? { institution: undefined, nav: [] }
        : failure.code === 'institution_archived'
          ? { title: 'Not while the institution is archived' }
          : {},
    redirect(request, error) {
      if (error.code === 'unauthorized') return signInFor(request);
      if (error.code === 'forbidden' && request.caller?.kind === 'student') return '/app/';
      return undefined;
    },
  };
}

/**
 * Builds each console request's context from what the request context resolved, and reads the
 * institution's open escalations for the banner every page shows staff, the pages a POST renders
 * again with its errors included (one query of a partial index; docs/notifications.md,
 * "Escalation").
 */
export function consoleContextHook() {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = request.caller;
    if (!caller || caller.kind === 'student') return;
    // Whatever the method: a form refused on a POST is the page again, with its errors, and the
    // banner belongs on it as on the GET that showed the form.
    if (request.institution && may(caller, 'helpdesk') && !request.routeOptions.config.fragment)
      request.escalations = await openEscalations(request.deps.db, request.institution.id);
    request.console = {
      caller,
      institution: request.institution,
      get csrf() {
        return csrfOf(request, reply);
      },
      may: (access) => may(caller, access),
      render: (template, data, status = 200) => reply.render(template, data, status),
    };
  };
}
