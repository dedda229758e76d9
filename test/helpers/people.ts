// People and sessions for tests: invite through the admin API, then start a session with the
// real session service (the sign-in flow itself is exercised end to end in test/people/sign-in*).
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Permission, Role } from '../../src/domain/access/policy.ts';
import { startSession } from '../../src/domain/people/sessions.ts';
import type { SeededTenant, TestContext } from './app.ts';
import { pushRoster } from './roster.ts';

export interface Browser {
  /** Cookie header value: the session cookie and, once fetched, the CSRF cookie. */
  cookie: string;
  /** CSRF token for state-changing requests (from GET /admin/v1/me). */
  csrf: string;
  request(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    options?: { csrf?: boolean },
  ): Promise<LightMyRequestResponse>;
}

/**
 * Posts a console form as a browser would: urlencoded, with the CSRF token as the first field,
 * `_csrf` (left out when `csrf` is false).
 */
export function postForm(
  ctx: TestContext,
  who: Browser,
  url: string,
  fields: [string, string][] | Record<string, string> = [],
  csrf = true,
): Promise<LightMyRequestResponse> {
  const sent = Array.isArray(fields) ? fields : Object.entries(fields);
  return ctx.app.inject({
    method: 'POST',
    url,
    headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(csrf ? [['_csrf', who.csrf], ...sent] : sent).toString(),
  });
}

let counter = 0;

/** A browser holding a session cookie (and its CSRF token) for the given session token. */
export async function browserWith(ctx: TestContext, sessionToken: string): Promise<Browser> {
  const name = ctx.deps.config.publicBaseUrl.startsWith('https:') ? '__Host-ssp_session' : 'ssp_session';
  const browser: Browser = {
    cookie: `${name}=${sessionToken}`,
    csrf: '',
    request: (method, url, body, options = {}) =>
      ctx.request({
        method,
        url,
        body,
        headers: {
          cookie: browser.cookie,
          ...(options.csrf === false || !browser.csrf ? {} : { 'x-csrf-token': browser.csrf }),
        },
      }),
  };
  const me = await browser.request('GET', '/admin/v1/me');
  if (me.statusCode === 200) {
    browser.csrf = me.json().csrf_token;
    const csrfCookie = me.cookies.find((c) => c.name.endsWith('ssp_csrf'));
    if (csrfCookie) browser.cookie += `; ${csrfCookie.name}=${csrfCookie.value}`;
  }
  return browser;
}

/** Invites a person into the tenant through the admin API; returns the person's id and email. */
export async function invitePerson(
  ctx: TestContext,
  tenant: SeededTenant,
  grants: { roles: Role[]; permissions?: Permission[]; email?: string; name?: string; invitation?: boolean },
): Promise<{ id: string; email: string }> {
  const email = grants.email ?? `person-${process.pid}-${++counter}@${tenant.slug}.example.edu`;
  const response = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/people`, {
    email,
    name: grants.name ?? `Person ${counter}`,
    roles: grants.roles,
    permissions: grants.permissions ?? [],
    // Tests count the emails they cause: the invitation email only where a test asks for it.
    send_invitation: grants.invitation ?? false,
  });
  if (response.statusCode !== 201) throw new Error(`invite: ${response.statusCode} ${response.body}`);
  return { id: response.json().id, email };
}

/** A signed-in browser of a new person with these grants. */
export async function personBrowser(
  ctx: TestContext,
  tenant: SeededTenant,
  grants: { roles: Role[]; permissions?: Permission[]; name?: string },
): Promise<Browser & { personId: string }> {
  const person = await invitePerson(ctx, tenant, grants);
  const session = await startSession(ctx.deps, {
    kind: 'person',
    personId: person.id,
    institutionId: tenant.institutionId,
  });
  return Object.assign(await browserWith(ctx, session.token), { personId: person.id });
}

/** A signed-in browser of a roster student of the tenant (pushed through the roster feed). */
export async function studentBrowser(
  ctx: TestContext,
  tenant: SeededTenant,
  fields: { start_date?: string; program_code?: string; campus_name?: string; first_name?: string } = {},
): Promise<Browser & { studentId: string; email: string }> {
  const email = `student-${process.pid}-${++counter}@${tenant.slug}.example.edu`;
  const push = await pushRoster(ctx, tenant, {
    students: [
      { email, student_id_ext: `ext-${counter}`, first_name: fields.first_name ?? 'Sam', ...fields },
    ],
  });
  assert.equal(push.statusCode, 200, push.body);
  assert.deepEqual(push.json().errors, []);
  const list = await ctx.admin(
    'GET',
    `/admin/v1/institutions/${tenant.slug}/students?email=${encodeURIComponent(email)}`,
  );
  const studentId = list.json().items[0].id as string;
  const session = await startSession(ctx.deps, {
    kind: 'student',
    studentId,
    institutionId: tenant.institutionId,
  });
  return Object.assign(await browserWith(ctx, session.token), { studentId, email });
}

/** A browser with an operator session (as after the one-time link). */
export async function operatorBrowser(ctx: TestContext): Promise<Browser> {
  const session = await startSession(ctx.deps, { kind: 'operator' });
  return browserWith(ctx, session.token);
}
