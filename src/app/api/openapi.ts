// The OpenAPI document of every JSON route (at /openapi.json, with PUBLIC_BASE_URL as its
// server) and the API reference rendered from it at /docs/. Registered before the routes, so
// that it sees each of them as it is added.
import swagger from '@fastify/swagger';
import { renderApiReference } from '@scalar/client-side-rendering';
import type { Deps } from '../../domain/deps.ts';
import type { App } from '../types.ts';
import { documentHeaders } from './openapi-headers.ts';
import { referenceScript } from './reference-script.ts';

/**
 * The reference page's settings. It works offline: its script is served from node_modules, and
 * everything that would reach other hosts is off (web fonts, the hosted API client and its
 * test-request buttons, the hosted AI agent and MCP generator, telemetry). Fonts fall back to
 * the system's.
 */
const REFERENCE_CONFIGURATION = {
  pageTitle: 'Student Support Platform API',
  withDefaultFonts: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  showDeveloperTools: 'never',
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  // Scalar's default greys and method colours are below WCAG AA contrast (4.5:1) on its light
  // backgrounds (axe: color-contrast on 43 nodes): darker ones, the same hues.
  customCss: `.light-mode, :root {
  --scalar-color-2: #4f4f4f;
  --scalar-color-3: #595959;
  --scalar-color-green: #00703f;
  --scalar-color-blue: #005a9e;
  --scalar-color-orange: #a83f00;
  --scalar-color-red: #b3261e;
  --scalar-color-yellow: #705300;
  --scalar-color-purple: #6b2fb3;
}
.light-mode .hljs-string, .light-mode .sidebar-search-placeholder, .light-mode .request-body-required,
.light-mode .property-required { filter: none; }
.light-mode .hljs-string { color: #005a9e; }
.light-mode .sidebar-search-placeholder { color: #595959; }
.light-mode .request-body-required, .light-mode .property-required { color: #a83f00; }`,
} as const;

/**
 * What the reference page needs besides Scalar's own: its language, and a name for each of
 * Scalar's copy buttons (an icon alone, which a screen reader cannot say: axe button-name).
 */
function accessible(page: string): string {
  const labels = `<script>
      new MutationObserver(() => {
        for (const button of document.querySelectorAll('button[class*="copy-button"]:not([aria-label])'))
          button.setAttribute('aria-label', 'Copy to the clipboard');
      }).observe(document.body, { childList: true, subtree: true });
    </script>`;
  return page.replace(/<html>/, '<html lang="en">').replace(/<\/body>/, `${labels}\n  </body>`);
}

export async function registerOpenApi(app: App, { config }: Pick<Deps, 'config'>): Promise<void> {
  await app.register(swagger, {
    // Idempotency-Key and the rate-limit fields, from the route settings that make them happen.
    transform: documentHeaders,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Student Support Platform API',
        version: '1.0.0',
        description:
          'How student information systems, help desks and administrators talk to the Student Support ' +
          'Platform: the SIS feeds (roster, programs, campuses, terms, units and enrolments), the help-desk ' +
          'sync, signed webhooks, and the admin API. Errors are JSON objects {"error": "<stable_code>", ...} ' +
          'with optional `detail`, `field` and `max`. Admin listings page by cursor (`limit`, `cursor`, ' +
          '`next_cursor`). An archived institution (POST /admin/v1/institutions/{slug}/archive) can be read ' +
          'but refuses every push and every change with 409 `institution_archived`, until the operator ' +
          'restores it; a push naming an archived cohort is 409 `cohort_archived`.',
      },
      // Every example request carries this host (PUBLIC_BASE_URL, default http://localhost:PORT).
      servers: [{ url: config.publicBaseUrl }],
      tags: [
        {
          name: 'sis',
          description: 'The SIS feeds: roster sync, and programs, campuses, terms, units and enrolments',
        },
        {
          name: 'help-desk sync',
          description: 'An external help desk mirrors ticket status onto help requests',
        },
        { name: 'admin', description: 'Institutions, cohorts, secrets, listings and the history of pushes' },
        {
          name: 'admin: help desk',
          description: 'Help requests, staff changes, the help-sync secret and the event log',
        },
        { name: 'webhooks', description: 'Webhook endpoints, their delivery logs and metrics' },
      ],
      components: {
        securitySchemes: {
          rosterSecret: {
            type: 'http',
            scheme: 'bearer',
            description: 'Per-institution roster feed secret (ssp_roster_…) or the platform bootstrap secret',
          },
          syncSecret: {
            type: 'http',
            scheme: 'bearer',
            description: 'Per-institution help-desk sync secret (ssp_sync_…)',
          },
          operatorToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'Operator token (ssp_op_…) for the admin API',
          },
          metricsToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The scrape token (METRICS_TOKEN) that reads GET /metrics and nothing else',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'ssp_session',
            description:
              'Session cookie set by sign-in (/auth/{slug}/sign-in); named __Host-ssp_session when the service is served over https. ' +
              'State-changing requests made with it must send the x-csrf-token header (from GET /admin/v1/me).',
          },
        },
      },
    },
  });
  registerReference(app);
  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}

/**
 * The API reference at /docs/, as @scalar/fastify-api-reference serves it (the same page, routes
 * and headers) but without importing the plugin, whose module holds the page's 4 MB script in the
 * heap twice for the life of the process (16.5 MB): the script is decoded from the plugin's file
 * once, when it is first asked for (reference-script.ts; a server nobody reads the reference on
 * never holds its 4 MB), and the YAML serializer is loaded when the YAML document is first asked
 * for.
 */
function registerReference(app: App): void {
  const route = { config: { access: 'public' as const }, schema: { hide: true } };
  const { pageTitle, ...configuration } = REFERENCE_CONFIGURATION;
  const page = accessible(
    renderApiReference({
      config: { _integration: 'fastify', ...configuration, url: './openapi.json' },
      cdn: 'js/scalar.js',
      pageTitle,
    }),
  );
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': '*' };
  app.get('/docs', route, async (request, reply) =>
    reply.redirect(`${new URL(request.url, 'http://localhost').pathname}/`, 301),
  );
  app.get('/docs/', route, async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  app.get('/docs/js/scalar.js', route, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(await referenceScript()),
  );
  // The plugin names both downloads after the document's title as it finds it, which is "spec".
  app.get('/docs/openapi.json', route, async (_request, reply) =>
    reply
      .type('application/json')
      .headers({ 'content-disposition': 'filename=spec.json', ...cors })
      .send(app.swagger()),
  );
  app.get('/docs/openapi.yaml', route, async (_request, reply) => {
    const { stringify } = await import('yaml');
    return reply
      .type('application/yaml')
      .headers({ 'content-disposition': 'filename=spec.yaml', ...cors })
      .send(stringify(app.swagger()));
  });
}
