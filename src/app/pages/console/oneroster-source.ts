// The OneRoster source (Manage integrations): the institution's OneRoster 1.2 REST provider,
// configured here (the client secret written, never shown back), "Sync now" (a full or delta
// pull asked of the worker: shown queued, then running), and the pull history with the
// source's health. Every page calls
// the domain with the request's context, as the admin API does (the same access, the same rules);
// a refusal is shown next to the field it names.
import type { FastifyRequest } from 'fastify';
import { listCohorts } from '../../../domain/institutions/institutions.ts';
import { requestPull } from '../../../domain/oneroster/pull/requests.ts';
import { SourceBody } from '../../../domain/oneroster/pull/schemas.ts';
import { findSource, putSource } from '../../../domain/oneroster/pull/sources.ts';
import { listRuns } from '../../../domain/runs/runs.ts';
import type { App } from '../../types.ts';
import { checkFormWithUrls } from '../form-check.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { checkErrors, refusalOf, text, when } from './forms.ts';
import {
  pendingRows,
  postedValues,
  pullRow,
  settingsOf,
  sourceFields,
  sourceFieldTexts,
  sourceValues,
} from './oneroster-source-view.ts';

const schema = { hide: true, params: PageParams };
const access = { access: 'integrations' as const };
const HISTORY = 20;

export function oneRosterSourceRoutes(app: App): void {
  const pagePath = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/oneroster-source`;

  const page = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const institutionId = institutionOf(request).id;
    const { db } = request.deps;
    const [source, cohorts, history] = await Promise.all([
      findSource(db, institutionId),
      listCohorts(db, institutionId, { limit: 200, archived: 'any' }),
      listRuns(db, institutionId, { limit: HISTORY, kind: 'oneroster' }),
    ]);
    const done = (request.query as { done?: unknown } | undefined)?.done;
    return ctx(request).render(
      'console/oneroster-source.eta',
      {
        title: 'OneRoster source',
        source,
        cohorts: cohorts.items,
        pulls: [...pendingRows(source), ...history.items.map(pullRow)],
        values: sourceValues(source),
        errors: {},
        done: typeof done === 'string' ? done : undefined,
        when,
        ...extra,
      },
      status,
    );
  };

  app.get('/:slug/oneroster-source', { config: access, schema }, async (request) => page(request));

  app.post(
    '/:slug/oneroster-source',
    { config: { ...access, formFields: sourceFields }, schema },
    async (request, reply) => {
      const values = postedValues(request.body);
      const shown = { ...values, client_secret: '' };
      // The API's own schema first, so every field's problem shows at once; then the domain's rules.
      const settings = settingsOf(values);
      const checked = checkFormWithUrls(
        SourceBody,
        { ...settings },
        sourceFieldTexts,
        { base_url: settings.base_url, token_url: settings.token_url },
        request.deps.policy,
      );
      if (!checked.ok) return page(request, { values: shown, ...checkErrors(checked.errors) }, 400);
      try {
        await putSource(request.deps, institutionOf(request).id, settings, request.deps.clock.now());
      } catch (error) {
        const refused = refusalOf(error, sourceFields);
        return page(request, { values: shown, ...refused }, refused.status);
      }
      return reply.redirect(`${pagePath(request)}?done=saved`, 303);
    },
  );

  // Sync now asks the worker for the pull (it no longer runs in the request): the page then
  // shows it queued, running, and in the pull history once it ends.
  app.post(
    '/:slug/oneroster-source/sync',
    { config: { ...access, formFields: ['mode'] }, schema },
    async (request, reply) => {
      const mode = text(request.body, 'mode') === 'delta' ? 'delta' : 'full';
      try {
        // Queued, and this process's pull worker woken (requests.ts).
        await requestPull(request.deps, institutionOf(request).id, mode);
      } catch (error) {
        const refused = refusalOf(error, []);
        return page(request, refused, refused.status);
      }
      return reply.redirect(`${pagePath(request)}?done=queued`, 303);
    },
  );
}
