// No input to the student pages gives a 5xx: arbitrary form bodies (any field, any text, any
// encoding, repeated fields, a JSON or a missing body), arbitrary request ids and query strings,
// with and without the CSRF token. And no input makes a request for another student.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { signedInStudent } from './helpers.ts';

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ maxLength: 2100 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%00',
    '%ZZ',
    '../',
    '\u0000',
    '\uD800',
    '<script>',
    'wellbeing',
    'crisis',
    '1',
  ),
);
const enc = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ZZ';
  }
};

describeEachDatabase('student pages under arbitrary input', (ctx) => {
  test('forms, ids and queries: never a 5xx; a created request is always the poster’s own', async () => {
    const tenant = await seedTenant(ctx());
    const student = await signedInStudent(ctx(), tenant);
    const other = await signedInStudent(ctx(), tenant);
    const csrf = decodeURIComponent(/_csrf=([^&]+)/.exec(await formBody(student))?.[1] ?? '');
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          description: text,
          category: text,
          crisis: text,
          extra: text,
          repeat: fc.boolean(),
          withCsrf: fc.boolean(),
          raw: fc.option(text, { nil: undefined }),
          contentType: fc.constantFrom(
            'application/x-www-form-urlencoded',
            'application/json',
            'text/plain',
            'multipart/form-data',
          ),
        }),
        fc.constantFrom('post', 'request', 'home', 'list', 'new', 'crisis', 'unknown'),
        async (input, route) => {
          const fields = [
            `description=${enc(input.description)}`,
            `category=${enc(input.category)}`,
            `crisis=${enc(input.crisis)}`,
            `x${enc(input.extra).slice(0, 20)}=${enc(input.extra)}`,
            ...(input.repeat ? [`description=${enc(input.extra)}`, `category=${enc(input.extra)}`] : []),
            ...(input.withCsrf ? [`_csrf=${enc(csrf)}`] : []),
          ];
          const payload =
            input.raw !== undefined
              ? input.raw
              : input.contentType === 'application/json'
                ? JSON.stringify({ description: input.description, category: input.category, _csrf: csrf })
                : fields.join('&');
          const url = {
            post: '/app/requests',
            request: `/app/requests/${enc(input.extra) || 'x'}?raised=${enc(input.crisis)}`,
            home: `/app/?${enc(input.extra)}=${enc(input.description)}`,
            list: `/app/requests?limit=${enc(input.extra)}`,
            new: `/app/requests/new?${enc(input.extra)}`,
            crisis: `/app/crisis?crisis=${enc(input.crisis)}`,
            unknown: `/app/${enc(input.extra)}/${enc(input.category)}`,
          }[route];
          const method = route === 'post' ? 'POST' : 'GET';
          const res = await ctx().app.inject({
            method,
            url,
            headers: {
              cookie: student.cookie,
              ...(method === 'POST' ? { 'content-type': input.contentType } : {}),
            },
            payload: method === 'POST' ? payload : undefined,
          });
          assert.ok(res.statusCode < 500, `${method} ${url} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
        },
      ),
      { numRuns: 200 },
    );
    // Whatever was created belongs to the poster; the other student has nothing.
    const list = async (studentId: string) =>
      (
        await ctx().admin(
          'GET',
          `/admin/v1/institutions/${tenant.slug}/help-requests?student_id=${studentId}&limit=1000`,
        )
      ).json().items as unknown[];
    assert.deepEqual(await list(other.studentId), []);
    const all = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests?limit=1000`)
    ).json().items as { student_id: string }[];
    assert.ok(all.every((r) => r.student_id === student.studentId));
  });
});

async function formBody(student: { get(url: string): Promise<{ body: string }> }): Promise<string> {
  const form = await student.get('/app/requests/new');
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  return `_csrf=${encodeURIComponent(token)}`;
}
