// Secrets: the roster feed secret (admins: issue, shown once; revoke; rotation date) and the
// help-sync secret (Manage integrations: issue, rotate, revoke). Replacing or revoking a working
// secret asks for confirmation first: the form posts once without `confirmed`, gets the
// confirmation page, and posts again with it.
//
// Every page calls the secrets domain's functions with the request's institution, as the admin
// API does, with the same access (`admin` for the roster secret, `integrations` for the help-sync
// secret); the help-sync panel is shown to those the policy grants it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  issueSyncSecret,
  revokeSyncSecret,
  rotateSyncSecret,
  syncSecretStatus,
} from '../../../domain/secrets/help-sync-secrets.ts';
import {
  issueRosterSecret,
  revokeRosterSecret,
  rosterSecretStatus,
} from '../../../domain/secrets/roster-secrets.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { confirmed, refusalOf, text } from './forms.ts';
import {
  overlapOf,
  type SecretAction,
  secretConfirmView,
  secretShownView,
  secretsView,
} from './secrets-view.ts';

const schema = { hide: true, params: PageParams };
const admin = { access: 'admin' as const };
const integrations = { access: 'integrations' as const };

/** The absence of an active secret to revoke, as the admin API answers it. */
const noActive = (which: string) => ({
  errors: {},
  formError: `no active ${which} (not_found)`,
  status: 404,
});

const pageOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/secrets`;

const overview = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
  const c = ctx(request);
  const institutionId = institutionOf(request).id;
  const [roster, sync] = await Promise.all([
    rosterSecretStatus(request.deps, institutionId, request.deps.clock.now()),
    c.may('integrations') ? syncSecretStatus(request.deps.db, institutionId) : undefined,
  ]);
  return c.render('console/secrets.eta', { ...secretsView(roster, sync), ...extra }, status);
};

/** Asks first (changing nothing, so left out of the audit) unless the form says it was confirmed. */
const unconfirmed = (request: FastifyRequest, action: SecretAction, overlapDays = 0) => {
  if (confirmed(request.body)) return undefined;
  request.unchanged = true;
  return ctx(request).render('console/confirm.eta', secretConfirmView(action, pageOf(request), overlapDays));
};

/**
 * Revokes a secret once confirmed, then shows the secrets with `done`; with no active secret to
 * revoke, the secrets say so (404), as the admin API does.
 */
const revoked = async (
  request: FastifyRequest,
  reply: FastifyReply,
  action: SecretAction,
  which: string,
  revoke: (db: FastifyRequest['deps']['db'], institutionId: string) => Promise<boolean>,
  done: string,
) => {
  const asked = unconfirmed(request, action);
  if (asked) return asked;
  if (!(await revoke(request.deps.db, institutionOf(request).id))) {
    const refused = noActive(which);
    return overview(request, refused, refused.status);
  }
  return reply.redirect(`${pageOf(request)}?done=${done}`, 303);
};

/** Runs a change; a refusal is shown above the secrets. */
const act = async (request: FastifyRequest, run: () => Promise<FastifyReply>) => {
  try {
    return await run();
  } catch (error) {
    const refused = refusalOf(error, []);
    return overview(request, refused, refused.status);
  }
};

const shown = (request: FastifyRequest, which: 'roster secret' | 'help-sync secret', secret: string) =>
  ctx(request).render('console/secret-shown.eta', secretShownView(which, secret, pageOf(request)));

/** The secret just issued, shown once. */
const syncSecretShown = async (request: FastifyRequest, issue: typeof issueSyncSecret) =>
  shown(request, 'help-sync secret', (await issue(request.deps.db, institutionOf(request))).secret);

export function secretRoutes(app: App): void {
  app.get('/:slug/secrets', { config: admin, schema }, async (request) => overview(request));

  app.post(
    '/:slug/secrets/roster',
    { config: { ...admin, formFields: ['previous_secret_valid_days', 'confirmed'] }, schema },
    async (request) => {
      const institution = institutionOf(request);
      const current = await rosterSecretStatus(request.deps, institution.id);
      const overlapDays =
        current.state === 'active' ? overlapOf(text(request.body, 'previous_secret_valid_days')) : 0;
      if (current.state === 'active') {
        const asked = unconfirmed(request, 'roster', overlapDays);
        if (asked) return asked;
      }
      return act(request, async () => {
        const issued = await issueRosterSecret(request.deps.db, institution, {
          previousValidDays: overlapDays,
          now: request.deps.clock.now(),
        });
        return shown(request, 'roster secret', issued.secret);
      });
    },
  );

  app.post(
    '/:slug/secrets/roster/revoke',
    { config: { ...admin, formFields: ['confirmed'] }, schema },
    async (request, reply) =>
      revoked(request, reply, 'roster/revoke', 'roster secret', revokeRosterSecret, 'roster_secret_revoked'),
  );

  app.post(
    '/:slug/secrets/help-sync',
    { config: { ...integrations, formFields: ['confirmed'] }, schema },
    async (request) => act(request, () => syncSecretShown(request, issueSyncSecret)),
  );

  app.post(
    '/:slug/secrets/help-sync/rotate',
    { config: { ...integrations, formFields: ['confirmed'] }, schema },
    async (request) => {
      const asked = unconfirmed(request, 'help-sync/rotate');
      if (asked) return asked;
      return act(request, () => syncSecretShown(request, rotateSyncSecret));
    },
  );

  app.post(
    '/:slug/secrets/help-sync/revoke',
    { config: { ...integrations, formFields: ['confirmed'] }, schema },
    async (request, reply) =>
      revoked(
        request,
        reply,
        'help-sync/revoke',
        'help-sync secret',
        revokeSyncSecret,
        'sync_secret_revoked',
      ),
  );
}
