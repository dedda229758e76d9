// What one request costs inside the application, counted rather than timed: how many times the
// session was resolved, and how many requests the application made to itself in-process
// (`inject`). A page that calls the domain with the request's context resolves the session once
// and makes none.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestContext } from './app.ts';
import type { Browser } from './people.ts';

export interface RequestCost {
  response: LightMyRequestResponse;
  /** Times the session was looked up (its indexed SELECT) while the request was served. */
  sessionLookups: number;
  /** In-process requests the application made while serving it. */
  injects: number;
}

/** Serves one request of a signed-in browser (a page, or a form post with its CSRF token) and counts its cost. */
export async function requestCost(
  ctx: TestContext,
  browser: Browser,
  url: string,
  form?: Record<string, string>,
): Promise<RequestCost> {
  const { app, deps } = ctx;
  const { db } = deps;
  const query = db.query;
  const inject = app.inject;
  let sessionLookups = 0;
  let injects = 0;
  // A session is looked up by its token's hash, in one statement (src/domain/people/queries/sessions.ts).
  db.query = ((sql: string, params?: unknown[]) => {
    if (/WHERE s\.token_hash = \$1/.test(sql)) sessionLookups += 1;
    return query.call(db, sql, params);
  }) as typeof query;
  // Every scope of the application reaches `inject` through the root instance's own property.
  app.inject = ((...args: Parameters<typeof inject>) => {
    injects += 1;
    return (inject as (...a: unknown[]) => unknown).apply(app, args);
  }) as typeof inject;
  try {
    const serve = inject as (options: InjectOptions) => Promise<LightMyRequestResponse>;
    const response = await serve.call(app, {
      method: form ? 'POST' : 'GET',
      url,
      headers: {
        cookie: browser.cookie,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      payload: form ? new URLSearchParams({ _csrf: browser.csrf, ...form }).toString() : undefined,
    });
    return { response, sessionLookups, injects };
  } finally {
    db.query = query;
    app.inject = inject;
  }
}
