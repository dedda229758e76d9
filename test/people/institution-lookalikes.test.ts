// Two institutions cannot look identical on the sign-in finder: names are compared by their
// skeleton (NFKC, invisible characters and spaces removed, lookalike letters of other scripts
// folded), control and format characters are refused in every display name, and only the
// operator renames an institution. Through the admin API and the console's forms; and the
// migration's report of names that already looked alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Db } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { onEachDatabaseBefore } from '../helpers/db.ts';
import { operatorBrowser, personBrowser } from '../helpers/people.ts';

let counter = 0;
const slug = () => `look-${process.pid}-${++counter}`;

/** Ways to write a letter so that it looks the same (or is invisible to the eye). */
const lookalikes: Record<string, string[]> = {
  a: ['\u0430', '\u03b1', '\uff41', 'A', '\u0410'],
  e: ['\u0435', '\uff45', 'E', '\u0415'],
  o: ['\u043e', '\u03bf', '\uff4f', '\u039f'],
  i: ['\u0456', '\u0131', '\uff49', 'I'],
  c: ['\u0441', '\uff43', '\u0421'],
  p: ['\u0440', '\u03c1', '\u0420'],
  ' ': ['\u00a0', '\u3000', '\u2002', '  ', ''],
};

describeEachDatabase('institution names that look alike', (ctx) => {
  test('a lookalike of another name is 409 institution_name_taken, whatever the disguise (property)', async () => {
    const n = `${counter}${process.pid}`;
    const base = `Pacific College ${n}`;
    const first = await ctx().admin('POST', '/admin/v1/institutions', { slug: slug(), name: base });
    assert.equal(first.statusCode, 201, first.body);
    for (const name of [
      `Pacific\u00a0College ${n}`,
      `P\u0430cific College ${n}`,
      `\uff30acific College ${n}`,
      `PACIFIC COLLEGE ${n}`,
    ]) {
      const again = await ctx().admin('POST', '/admin/v1/institutions', { slug: slug(), name });
      assert.equal(again.statusCode, 409, `${JSON.stringify(name)}: ${again.body}`);
      assert.deepEqual([again.json().error, again.json().field], ['institution_name_taken', 'name']);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { minLength: base.length, maxLength: base.length }),
        async (picks) => {
          const disguised = [...base]
            .map((ch, i) => {
              const options = lookalikes[ch.toLowerCase()];
              return options && picks[i] % 3 !== 0 ? options[picks[i] % options.length] : ch;
            })
            .join('');
          fc.pre(disguised.trim() !== '');
          const response = await ctx().admin('POST', '/admin/v1/institutions', {
            slug: slug(),
            name: disguised,
          });
          assert.equal(response.statusCode, 409, `${JSON.stringify(disguised)}: ${response.body}`);
        },
      ),
      { numRuns: 40 },
    );
    const different = await ctx().admin('POST', '/admin/v1/institutions', {
      slug: slug(),
      name: `${base} of Art`,
    });
    assert.equal(different.statusCode, 201, different.body);
  });

  test('control and format characters are refused in every display name, with a clear message', async () => {
    const tenant = await seedTenant(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}`;
    const hidden = ['\u200b', '\u00ad', '\u202e', '\n', '\u0007', '\u2060', '\ufeff', '\u{e0041}', '\u2028'];
    for (const ch of hidden) {
      const attempts = [
        ctx().admin('POST', '/admin/v1/institutions', { slug: slug(), name: `Hidden${ch}College` }),
        ctx().admin('POST', `${base}/people`, {
          email: `p${++counter}@example.edu`,
          name: `Ana${ch}Lima`,
          roles: ['staff'],
        }),
        ctx().admin('POST', `${base}/cohorts`, { name: `Cohort${ch}A`, start_date: '2026-09-01' }),
        ctx().admin('POST', `${base}/webhook-endpoints`, {
          url: 'https://hooks.example.org/x',
          description: `Desk${ch}hook`,
        }),
      ];
      for (const response of await Promise.all(attempts)) {
        assert.equal(response.statusCode, 400, `${JSON.stringify(ch)}: ${response.body}`);
        assert.equal(response.json().error, 'invalid_field');
        assert.match(response.json().field, /^(name|description)$/);
        assert.match(response.json().detail, /invisible formatting characters/);
      }
    }
    const contact = await ctx().admin('PUT', `${base}/crisis-contacts`, {
      contacts: [{ name: 'Campus\u202esecurity', phone: '+1 555 0100' }],
    });
    assert.equal(contact.statusCode, 400, contact.body);
    assert.deepEqual([contact.json().error, contact.json().field], ['invalid_field', 'contacts[0].name']);
    // Names in scripts that need a joiner, and emoji, are names.
    const persian = await ctx().admin('POST', `${base}/people`, {
      email: `fa${++counter}@example.edu`,
      name: 'Mi\u200cnoo Rahimi 🎓',
      roles: ['staff'],
    });
    assert.equal(persian.statusCode, 201, persian.body);

    // The console's form says it in words, next to the field.
    const operator = await operatorBrowser(ctx());
    const form = await ctx().app.inject({
      method: 'POST',
      url: `/console/${tenant.slug}/cohorts`,
      headers: { cookie: operator.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: operator.csrf,
        name: 'Cohort\u200bB',
        start_date: '2026-09-01',
      }).toString(),
    });
    assert.equal(form.statusCode, 400);
    assert.match(form.body, /must not hold invisible or control characters/);
  });

  test('only the operator renames an institution; an admin may send the name as stored', async () => {
    const tenant = await seedTenant(ctx());
    const url = `/admin/v1/institutions/${tenant.slug}`;
    const admin = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const stored = (await ctx().admin('GET', url)).json().name;
    const rename = await admin.request('PATCH', url, { name: `${stored} Renamed` });
    assert.equal(rename.statusCode, 403, rename.body);
    assert.deepEqual([rename.json().error, rename.json().field], ['institution_name_operator_only', 'name']);
    const same = await admin.request('PATCH', url, { name: stored, time_zone: 'Europe/Paris' });
    assert.equal(same.statusCode, 200, same.body);
    const byOperator = await ctx().admin('PATCH', url, { name: `${stored} Renamed` });
    assert.equal(byOperator.statusCode, 200, byOperator.body);
    assert.equal(byOperator.json().name_lookalike_of, null);
  });
});

/** Names that looked alike before the upgrade: kept, reported, and held to the rule once renamed. */
async function lookalikesBefore(db: Db) {
  await db.query(
    `INSERT INTO institutions (slug, name, created_at) VALUES
       ('oldest', 'Delta University', now() - interval '3 days'),
       ('nbsp', U&'Delta\\00A0University', now() - interval '2 days'),
       ('cyrillic', U&'D\\0435lta University', now() - interval '1 day'),
       ('other', 'Gamma University', now())`,
  );
  await migrate(db, listMigrations());
  const { rows } = await db.query<{ slug: string; name_lookalike_of: string | null }>(
    'SELECT slug, name_lookalike_of FROM institutions ORDER BY slug',
  );
  assert.deepEqual(rows, [
    { slug: 'cyrillic', name_lookalike_of: 'oldest' },
    { slug: 'nbsp', name_lookalike_of: 'oldest' },
    { slug: 'oldest', name_lookalike_of: null },
    { slug: 'other', name_lookalike_of: null },
  ]);
  // A new lookalike is refused; a reported one renamed to something distinct is cleared.
  await assert.rejects(db.query(`INSERT INTO institutions (slug, name) VALUES ('new', 'DELTA UNIVERSITY')`));
  await db.query(
    `UPDATE institutions SET name = 'Delta Institute', name_lookalike_of = NULL WHERE slug = 'nbsp'`,
  );
}

test('the upgrade reports names that already looked alike instead of failing', async () => {
  await onEachDatabaseBefore('0062', lookalikesBefore);
});
