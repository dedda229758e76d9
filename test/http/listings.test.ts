// Admin listings: keyset paging by an opaque cursor on every listing, the students search and
// filters, and the CSV exports (students, a run's row errors).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { pushEnrolments, pushRoster } from '../helpers/roster.ts';

/** Reads a listing page by page; returns every row and the number of pages. */
async function readAll(ctx: TestContext, url: string, limit: number) {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const res = await ctx.admin(
      'GET',
      `${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['items', 'next_cursor']);
    assert.ok(body.items.length > 0 || pages === 0, 'only a first page may be empty');
    assert.ok(body.items.length <= limit);
    items.push(...body.items);
    cursor = body.next_cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

const ids = (rows: Record<string, unknown>[]) => rows.map((r) => r.id);

async function seedEverything(ctx: TestContext, tenant: SeededTenant) {
  const roster = await pushRoster(ctx, tenant, {
    students: [
      ...Array.from({ length: 9 }, (_, i) => ({
        email: `${i % 2 ? 'Stu' : 'stu'}${i}@example.edu`,
        student_id_ext: `EXT-${i}`,
        first_name: ['Ada', 'Grace', 'Alan'][i % 3],
        last_name: ['Lovelace', 'Hopper', 'Turing'][i % 3],
      })),
      { email: 'not an email', student_id_ext: 'BAD-1' },
    ],
  });
  assert.equal(roster.statusCode, 200, roster.body);
  const enrolments = await pushEnrolments(ctx, tenant, {
    programs: ['BSC', 'BA', 'MSC', 'PHD'].map((program_code) => ({ program_code, name: program_code })),
    campuses: ['North', 'south', 'East'].map((name) => ({ name })),
    terms: [
      { term_code: 'T2', start_date: '2026-07-01', end_date: '2026-11-01' },
      { term_code: 'T1', start_date: '2026-02-01', end_date: '2026-06-01' },
      { term_code: 'T0', start_date: '2026-02-01', end_date: '2026-03-01' },
    ],
    units: ['U3', 'u1', 'U2'].map((unit_code) => ({ unit_code, program_code: 'BSC' })),
    enrolments: ['T1', 'T2'].flatMap((term_code) =>
      ['U2', 'U3'].flatMap((unit_code) =>
        [0, 1, 2].map((i) => ({
          email: `stu${i}@example.edu`.replace('stu1', 'Stu1'),
          unit_code,
          term_code,
        })),
      ),
    ),
  });
  assert.equal(enrolments.statusCode, 200, enrolments.body);
  assert.deepEqual(enrolments.json().errors, []);
  for (const name of ['B', 'C'])
    await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/cohorts`, { name });
  // Endpoints first: the help requests' events fan out to them as deliveries.
  for (let i = 0; i < 3; i++) {
    const hook = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`, {
      url: `http://127.0.0.1:9/hook-${i}`,
    });
    assert.equal(hook.statusCode, 201, hook.body);
  }
  const { rows } = await ctx.db.query<{ id: string }>(
    'SELECT id FROM students WHERE institution_id = $1 ORDER BY lower(email)',
    [tenant.institutionId],
  );
  for (const [i, { id }] of rows.entries()) {
    const created = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
      student_id: id,
      priority: i % 2 ? 'high' : 'low',
    });
    assert.equal(created.statusCode, 201, created.body);
  }
}

describeEachDatabase(
  'admin listings',
  (ctx) => {
    test('every listing pages by cursor: the pages together are the whole listing, in order, once', async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}`;
      const endpoint = (await ctx().admin('GET', `${base}/webhook-endpoints`)).json().items[0].id;
      const { rows: deliveries } = await ctx().db.query<{ id: string; event_id: string }>(
        'SELECT id, event_id FROM webhook_deliveries WHERE endpoint_id = $1',
        [endpoint],
      );
      assert.ok(deliveries.length >= 3);
      for (const d of deliveries.slice(0, 3))
        await ctx().db.query(
          `INSERT INTO webhook_attempts (institution_id, delivery_id, endpoint_id, event_id, attempted_at, outcome, duration_ms)
           VALUES ($1, $2, $3, $4, now(), 'timeout', 10), ($1, $2, $3, $4, now(), 'timeout', 10)`,
          [tenant.institutionId, d.id, endpoint, d.event_id],
        );
      const listings = [
        'cohorts',
        'students',
        'programs',
        'campuses',
        'audience-tags',
        'terms',
        'units',
        'enrolments',
        'runs',
        'help-requests',
        'webhook-endpoints',
        `webhook-endpoints/${endpoint}/deliveries`,
        `webhook-endpoints/${endpoint}/attempts`,
      ];
      for (const listing of listings) {
        const whole = await readAll(ctx(), `${base}/${listing}`, 1000);
        assert.equal(whole.pages, 1, listing);
        assert.ok(whole.items.length >= 2, `${listing}: ${whole.items.length} rows`);
        for (const limit of [1, 2]) {
          const paged = await readAll(ctx(), `${base}/${listing}`, limit);
          assert.deepEqual(ids(paged.items), ids(whole.items), `${listing} by ${limit}`);
          assert.equal(paged.pages, Math.ceil(whole.items.length / limit), listing);
        }
      }
      // Orders, as documented.
      const students = (await readAll(ctx(), `${base}/students`, 3)).items;
      const emails = students.map((s) => String(s.email).toLowerCase());
      assert.deepEqual(emails, [...emails].sort());
      const terms = (await readAll(ctx(), `${base}/terms`, 1)).items.map((t) => t.term_code);
      assert.deepEqual(terms, ['T0', 'T1', 'T2']);
      const units = (await readAll(ctx(), `${base}/units`, 1)).items.map((u) => u.unit_code);
      assert.deepEqual(units, ['u1', 'U2', 'U3']);
      const campuses = (await readAll(ctx(), `${base}/campuses`, 1)).items.map((c) => c.name);
      assert.deepEqual(campuses, ['East', 'North', 'south']);
      const enrolments = (await readAll(ctx(), `${base}/enrolments`, 5)).items;
      assert.deepEqual(
        enrolments.slice(0, 4).map((e) => [e.term_code, e.unit_code, e.email]),
        [
          ['T1', 'U2', 'stu0@example.edu'],
          ['T1', 'U2', 'Stu1@example.edu'],
          ['T1', 'U2', 'stu2@example.edu'],
          ['T1', 'U3', 'stu0@example.edu'],
        ],
      );
      const requests = (await readAll(ctx(), `${base}/help-requests`, 4)).items;
      const created = requests.map((r) => `${r.created_at} ${r.id}`);
      assert.deepEqual(created, [...created].sort().reverse(), 'help requests newest first');
      const attempts = (await readAll(ctx(), `${base}/webhook-endpoints/${endpoint}/attempts`, 4)).items;
      assert.equal(attempts.length, 6);
      assert.deepEqual(
        attempts.map((a) => a.id),
        attempts.map((a) => a.id as number).sort((a, b) => b - a),
      );
      // The institutions listing pages too (other tests' institutions are in it as well).
      const institutions = await readAll(ctx(), '/admin/v1/institutions', 1);
      assert.ok(institutions.items.some((i) => i.slug === tenant.slug));
      const slugs = institutions.items.map((i) => String(i.slug));
      assert.deepEqual(slugs, [...slugs].sort());
    });

    test('a page holds what was there when it is read: rows added behind the cursor do not shift it', async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      const url = `/admin/v1/institutions/${tenant.slug}/students?limit=4`;
      const first = (await ctx().admin('GET', url)).json();
      await pushRoster(ctx(), tenant, {
        students: [{ email: 'aaa@example.edu', student_id_ext: 'EXT-new' }],
      });
      const second = (await ctx().admin('GET', `${url}&cursor=${first.next_cursor}`)).json();
      const firstEmails = first.items.map((s: { email: string }) => s.email.toLowerCase());
      const secondEmails = second.items.map((s: { email: string }) => s.email.toLowerCase());
      assert.ok(secondEmails[0] > firstEmails.at(-1), 'the next page starts after the last row read');
    });

    test('a tampered cursor, or one of another listing, is 400 invalid_cursor', async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}`;
      const cursor = (await ctx().admin('GET', `${base}/students?limit=2`)).json().next_cursor as string;
      const [payload, check] = cursor.split('.');
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify([...decoded.slice(0, 1), 'zzz'])).toString('base64url');
      const bad = [
        `${payload}.AAAAAAAA`,
        `${forged}.${check}`,
        `${payload.slice(0, -2)}.${check}`,
        'not-a-cursor',
        '',
        `${payload}.${check}x`,
      ];
      for (const c of bad) {
        const res = await ctx().admin('GET', `${base}/students?cursor=${encodeURIComponent(c)}`);
        assert.equal(res.statusCode, 400, `${c}: ${res.body}`);
        assert.equal(res.json().error, c === '' ? 'invalid_cursor' : 'invalid_cursor');
      }
      for (const other of ['programs', 'runs', 'help-requests']) {
        const res = await ctx().admin('GET', `${base}/${other}?cursor=${cursor}`);
        assert.deepEqual(
          [res.statusCode, res.json().error, res.json().field],
          [400, 'invalid_cursor', 'cursor'],
        );
      }
    });

    test('students: search by prefix of email, external id or name, and filter by cohort, program, campus, status', async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}/students`;
      const find = async (query: string) => {
        const res = await ctx().admin('GET', `${base}?${query}`);
        assert.equal(res.statusCode, 200, res.body);
        return res
          .json()
          .items.map((s: { student_id_ext: string }) => s.student_id_ext)
          .sort();
      };
      assert.deepEqual(await find('q=STU1'), ['EXT-1']);
      assert.deepEqual(await find('q=ext-8'), ['EXT-8']);
      assert.deepEqual(await find('q=ada'), ['EXT-0', 'EXT-3', 'EXT-6']);
      assert.deepEqual(await find('q=hopp'), ['EXT-1', 'EXT-4', 'EXT-7']);
      assert.deepEqual(await find(`q=${encodeURIComponent('alan tur')}`), ['EXT-2', 'EXT-5', 'EXT-8']);
      assert.deepEqual(await find('q=%25'), [], 'LIKE wildcards are literal');
      assert.deepEqual(await find('q=_'), []);
      assert.deepEqual(await find('email=STU3@EXAMPLE.EDU'), ['EXT-3']);
      assert.deepEqual(await find('student_id_ext=EXT-4'), ['EXT-4']);
      assert.deepEqual(await find('student_id_ext=ext-4'), []);
      assert.deepEqual(await find(`cohort_id=${tenant.cohortId}&q=ada`), ['EXT-0', 'EXT-3', 'EXT-6']);
      await ctx().db.query(
        `UPDATE students SET program_id = (SELECT id FROM programs WHERE institution_id = $1 AND code = 'BA'),
           campus_id = (SELECT id FROM campuses WHERE institution_id = $1 AND name = 'North'),
           departed_at = CASE WHEN student_id_ext = 'EXT-2' THEN now() END
         WHERE institution_id = $1 AND student_id_ext IN ('EXT-2', 'EXT-5')`,
        [tenant.institutionId],
      );
      assert.deepEqual(await find('program=ba'), ['EXT-2', 'EXT-5']);
      assert.deepEqual(await find('campus=NORTH&program=BA'), ['EXT-2', 'EXT-5']);
      assert.deepEqual(await find('status=departed'), ['EXT-2']);
      assert.equal((await find('status=active')).length, 8);
      assert.deepEqual(await find('program=none'), []);
      // Filters and paging together.
      const paged = await readAll(ctx(), `${base}?q=s`, 2);
      assert.equal(paged.items.length, 9);
      const students = (await ctx().admin('GET', `${base}?email=stu0@example.edu`)).json().items;
      assert.deepEqual(Object.keys(students[0]).sort(), [
        'campus_name',
        'cohort_id',
        'created_at',
        'departed_at',
        'email',
        'first_in_family',
        'first_name',
        'id',
        'last_name',
        'program_code',
        'start_date',
        'student_id_ext',
        'updated_at',
      ]);
    });

    test('students.csv streams every matching student, RFC 4180 quoted and formula-safe', async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      await ctx().db.query(
        `UPDATE students SET first_name = '=HYPERLINK("http://x")', last_name = 'O''Brien, "Jr"'
         WHERE institution_id = $1 AND student_id_ext = 'EXT-0'`,
        [tenant.institutionId],
      );
      const base = `/admin/v1/institutions/${tenant.slug}/students`;
      const res = await ctx().admin('GET', `${base}.csv`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      assert.match(String(res.headers['content-disposition']), /attachment; filename=".*-students\.csv"/);
      const lines = res.body.split('\r\n');
      assert.equal(lines.at(-1), '');
      assert.equal(
        lines[0],
        'id,email,student_id_ext,first_name,last_name,cohort_id,program_code,campus_name,first_in_family,start_date,departed_at,created_at,updated_at',
      );
      assert.equal(lines.length, 1 + 9 + 1);
      const ada = lines.find((l) => l.includes('EXT-0'));
      assert.match(String(ada), /,EXT-0,"'=HYPERLINK\(""http:\/\/x""\)","O'Brien, ""Jr""",/);
      const listing = (await readAll(ctx(), base, 1000)).items.map((s) => s.id);
      assert.deepEqual(
        lines.slice(1, -1).map((l) => l.split(',')[0]),
        listing,
      );
      const viaFormat = await ctx().admin('GET', `${base}?format=csv&q=ada`);
      assert.equal(viaFormat.statusCode, 200);
      assert.equal(viaFormat.body.split('\r\n').length, 1 + 2 + 1, 'EXT-3 and EXT-6 (EXT-0 is renamed)');
      const bad = await ctx().admin('GET', `${base}.csv?cohort_id=nope`);
      assert.equal(bad.statusCode, 400);
      const unknown = await ctx().admin('GET', '/admin/v1/institutions/no-such-place/students.csv');
      assert.equal(unknown.statusCode, 404);
      const anonymous = await ctx().request({ method: 'GET', url: `${base}.csv` });
      assert.equal(anonymous.statusCode, 401);
    });

    test("a run's row errors as CSV", async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}/runs`;
      const runs = (await ctx().admin('GET', `${base}?kind=roster`)).json().items;
      const run = runs.find((r: { error_count: number }) => r.error_count > 0);
      const res = await ctx().admin('GET', `${base}/${run.id}/errors.csv`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      const lines = res.body.split('\r\n');
      assert.equal(lines[0], 'section,line,row,code,field,message,email,student_id_ext,unit_code,term_code');
      assert.equal(lines.length, 1 + run.error_count + 1);
      assert.match(lines[1], /^,10,9,/);
      assert.match(lines[1], /,not an email,BAD-1,,$/, 'the keys the row was sent with come last');
      const clean =
        runs.find((r: { error_count: number }) => r.error_count === 0) ??
        (await ctx().admin('GET', `${base}?kind=enrolments`)).json().items[0];
      const empty = await ctx().admin('GET', `${base}/${clean.id}/errors.csv`);
      assert.equal(
        empty.body,
        'section,line,row,code,field,message,email,student_id_ext,unit_code,term_code\r\n',
      );
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        const missing = await ctx().admin('GET', `${base}/${id}/errors.csv`);
        assert.deepEqual([missing.statusCode, missing.json().error], [404, 'not_found']);
      }
      const other = await seedTenant(ctx());
      const elsewhere = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${other.slug}/runs/${run.id}/errors.csv`,
      );
      assert.equal(elsewhere.statusCode, 404);
    });

    test('a help request can be created by student email', async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      const url = `/admin/v1/institutions/${tenant.slug}/help-requests`;
      const created = await ctx().admin('POST', url, { student_email: 'STU1@example.edu', priority: 'high' });
      assert.equal(created.statusCode, 201, created.body);
      const { rows } = await ctx().db.query<{ id: string }>(
        "SELECT id FROM students WHERE institution_id = $1 AND student_id_ext = 'EXT-1'",
        [tenant.institutionId],
      );
      assert.equal(created.json().student_id, rows[0].id);
      const unknown = await ctx().admin('POST', url, { student_email: 'nobody@example.edu' });
      assert.deepEqual([unknown.statusCode, unknown.json().error], [404, 'student_not_found']);
      const neither = await ctx().admin('POST', url, { priority: 'low' });
      assert.deepEqual([neither.statusCode, neither.json().error], [400, 'missing_field']);
      const both = await ctx().admin('POST', url, {
        student_email: 'stu1@example.edu',
        student_id: rows[0].id,
      });
      assert.deepEqual([both.statusCode, both.json().error], [400, 'invalid_request']);
    });

    test('no cursor, limit or filter input gives a 5xx', async () => {
      const tenant = await seedTenant(ctx());
      await seedEverything(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}`;
      const real = (await ctx().admin('GET', `${base}/students?limit=1`)).json().next_cursor as string;
      const forge = (value: unknown) => {
        const payload = Buffer.from(JSON.stringify(value));
        // A well-formed cursor with a correct checksum, around any key: only the key's checks stand.
        const check = createHash('sha256').update(payload).digest().subarray(0, 6);
        return `${payload.toString('base64url')}.${check.toString('base64url')}`;
      };
      const text = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.constantFrom(
          '\u0000',
          '\ud800',
          '%',
          '_',
          '\\',
          "'",
          '99999999999999999999',
          '-1',
          '0',
          '2026-02-30',
        ),
      );
      const key = fc.array(fc.oneof(text, fc.integer(), fc.double(), fc.constant(null), fc.uuid()), {
        maxLength: 5,
      });
      const listing = fc.constantFrom(
        'students',
        'programs',
        'terms',
        'enrolments',
        'runs',
        'help-requests',
        'audience-tags',
        'cohorts',
        'webhook-endpoints',
        'full-syncs',
      );
      const cursor = fc.oneof(
        text,
        fc.constant(real),
        fc.tuple(listing, key).map(([l, k]) => forge([l, ...k])),
        fc
          .tuple(fc.constantFrom('students', 'terms', 'runs', 'enrolments', 'webhook-attempts'), key)
          .map(([l, k]) => forge([l, ...k])),
      );
      const param = fc.constantFrom(
        'limit',
        'cursor',
        'q',
        'email',
        'student_id_ext',
        'program',
        'campus',
        'status',
        'cohort_id',
        'format',
        'term_code',
        'kind',
        'state',
        'priority',
      );
      await fc.assert(
        fc.asyncProperty(
          listing,
          fc.dictionary(param, fc.oneof(text, cursor, fc.integer().map(String)), { maxKeys: 4 }),
          async (path, query) => {
            const qs = new URLSearchParams(query as Record<string, string>).toString();
            for (const url of [`${base}/${path}?${qs}`, `${base}/students.csv?${qs}`]) {
              const res = await ctx().admin('GET', url);
              assert.ok(res.statusCode < 500, `${url}: ${res.statusCode} ${res.body}`);
              if (res.statusCode >= 400) assert.equal(typeof res.json().error, 'string');
            }
          },
        ),
        { numRuns: 150 },
      );
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
