// Students of the student pages for tests: pushed through the real feeds (taxonomy, roster),
// signed in with a real session, and a browser that reads pages and posts forms as a browser
// does (form encoding, the `_csrf` field, cookies).
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { SeededTenant, TestContext } from '../helpers/app.ts';
import { studentBrowser } from '../helpers/people.ts';
import { pushEnrolments } from '../helpers/roster.ts';

export interface StudentPages {
  studentId: string;
  email: string;
  /** The Cookie header of this browser (session and CSRF cookies). */
  cookie: string;
  get(url: string): Promise<LightMyRequestResponse>;
  /** Posts a form; `_csrf` is added unless `csrf: false`. */
  post(
    url: string,
    fields: Record<string, string>,
    options?: { csrf?: boolean },
  ): Promise<LightMyRequestResponse>;
}

/** Pushes programs and campuses through the enrolments feed. */
export async function pushTaxonomy(
  ctx: TestContext,
  tenant: SeededTenant,
  body: { programs?: { program_code: string; name?: string }[]; campuses?: { name: string }[] },
): Promise<void> {
  const res = await pushEnrolments(ctx, tenant, { ...body });
  assert.equal(res.statusCode, 200, res.body);
}

/** A roster student (pushed through the roster feed) signed in to the student pages. */
export async function signedInStudent(
  ctx: TestContext,
  tenant: SeededTenant,
  fields: { start_date?: string; program_code?: string; campus_name?: string; first_name?: string } = {},
): Promise<StudentPages> {
  const browser = await studentBrowser(ctx, tenant, fields);
  return {
    studentId: browser.studentId,
    email: browser.email,
    cookie: browser.cookie,
    get: (url) => ctx.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } }),
    post: (url, form, options = {}) =>
      ctx.app.inject({
        method: 'POST',
        url,
        headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          ...(options.csrf === false ? {} : { _csrf: browser.csrf }),
          ...form,
        }).toString(),
      }),
  };
}

/** The text of a page without tags (whitespace collapsed), for assertions on what people read. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Sets the cohort's start date (a yyyy-mm-dd day, or null), as an admin would. */
export async function setCohortStart(ctx: TestContext, tenant: SeededTenant, start: string | null) {
  const res = await ctx.admin('PATCH', `/admin/v1/institutions/${tenant.slug}/cohorts/${tenant.cohortId}`, {
    start_date: start,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().start_date, start);
}

/** Gives the institution two crisis contacts (a phone line and a web page), as an admin would. */
export async function setCrisisContacts(ctx: TestContext, tenant: SeededTenant) {
  const res = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/crisis-contacts`, {
    contacts: [
      { name: 'Campus security', phone: '+44 20 7946 0000', hours: '24/7' },
      {
        name: 'Night line',
        url: 'https://nightline.example.org',
        hours: '20:00 to 08:00',
        description: 'Listening service run by students',
      },
    ],
  });
  assert.equal(res.statusCode, 200, res.body);
}
