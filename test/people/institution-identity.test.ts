// One institution cannot pose as another on the shared sign-in page: display names are unique
// ignoring case and spaces, an email domain belongs to one institution, and only the operator
// assigns domains. Through the admin API, the console's forms (refusals inline) and the sign-in
// search; and the migration's handling of names and domains shared before it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { describeEachDatabase, type SeededTenant, seedTenant } from '../helpers/app.ts';
import { onEachDatabaseBefore } from '../helpers/db.ts';
import { type DevIdp, startTestIdp, TEST_CLIENT } from '../helpers/idp.ts';
import { operatorBrowser, personBrowser, postForm } from '../helpers/people.ts';

let idp: DevIdp;
before(async () => {
  idp = await startTestIdp();
});
after(() => idp?.close());

let counter = 0;
const unique = (base: string) => `${base} ${process.pid}-${++counter}`;

function providerBody(domains?: string[]) {
  return {
    issuer: idp.issuer,
    client_id: TEST_CLIENT.client_id,
    client_secret: TEST_CLIENT.client_secret,
    ...(domains ? { email_domains: domains } : {}),
  };
}

describeEachDatabase(
  'institution names and email domains',
  (ctx) => {
    test('display names are unique ignoring case and spaces, on creation and on rename', async () => {
      const name = unique('Bee College');
      const slug = `bee-${counter}`;
      const first = await ctx().admin('POST', '/admin/v1/institutions', { slug, name });
      assert.equal(first.statusCode, 201, first.body);
      for (const lookalike of [
        `  ${name.toLowerCase()}  `,
        name.toUpperCase().replaceAll(' ', '   '),
        name.replaceAll(' ', ''),
      ]) {
        const again = await ctx().admin('POST', '/admin/v1/institutions', {
          slug: `bee-copy-${++counter}`,
          name: lookalike,
        });
        assert.equal(again.statusCode, 409, `${JSON.stringify(lookalike)}: ${again.body}`);
        assert.equal(again.json().error, 'institution_name_taken');
        assert.equal(again.json().field, 'name');
      }
      const slugTaken = await ctx().admin('POST', '/admin/v1/institutions', {
        slug,
        name: unique('X'),
      });
      assert.equal(slugTaken.json().error, 'conflict');

      // Only the operator renames (test/people/institution-lookalikes.test.ts).
      const other = await seedTenant(ctx());
      const rename = await ctx().admin('PATCH', `/admin/v1/institutions/${other.slug}`, {
        name: name.toUpperCase(),
      });
      assert.equal(rename.statusCode, 409, rename.body);
      assert.equal(rename.json().error, 'institution_name_taken');
      const fine = await ctx().admin('PATCH', `/admin/v1/institutions/${other.slug}`, {
        name: `${name} of Art`,
      });
      assert.equal(fine.statusCode, 200, fine.body);
      // Its own name in other case is no clash with itself.
      const own = await ctx().admin('PATCH', `/admin/v1/institutions/${slug}`, {
        name: name.toLowerCase(),
      });
      assert.equal(own.statusCode, 200, own.body);
    });

    test('an email domain belongs to one institution, and only the operator assigns domains', async () => {
      const a = await seedTenant(ctx());
      const b = await seedTenant(ctx());
      const domain = `b${process.pid}-${++counter}.example.org`;
      const base = (t: SeededTenant) => `/admin/v1/institutions/${t.slug}/identity-provider`;
      const claimA = await ctx().admin('PUT', base(a), providerBody([domain]));
      assert.equal(claimA.statusCode, 200, claimA.body);
      const claimB = await ctx().admin(
        'PUT',
        base(b),
        providerBody([domain.toUpperCase(), `other-${domain}`]),
      );
      assert.equal(claimB.statusCode, 409, claimB.body);
      assert.deepEqual(
        [claimB.json().error, claimB.json().field, claimB.json().domains],
        ['email_domain_taken', 'email_domains', [domain]],
      );

      // B's own admin: may save the provider (domains left out, or as stored), may not assign any.
      const adminB = await personBrowser(ctx(), b, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const selfAssigned = await adminB.request('PUT', base(b), providerBody([domain]));
      assert.equal(selfAssigned.statusCode, 403, selfAssigned.body);
      assert.equal(selfAssigned.json().error, 'email_domains_operator_only');
      const fresh = await adminB.request('PUT', base(b), providerBody([`fresh-${domain}`]));
      assert.equal(fresh.json().error, 'email_domains_operator_only');
      const withoutDomains = await adminB.request('PUT', base(b), providerBody());
      assert.equal(withoutDomains.statusCode, 200, withoutDomains.body);
      assert.deepEqual(withoutDomains.json().email_domains, []);
      const byOperator = await ctx().admin('PUT', base(b), providerBody([`b-${domain}`]));
      assert.equal(byOperator.statusCode, 200, byOperator.body);
      const asStored = await adminB.request('PUT', base(b), providerBody([`B-${domain}`]));
      assert.equal(asStored.statusCode, 200, asStored.body);

      // The sign-in page finds A, and only A, by the domain.
      const search = await ctx().request({
        method: 'GET',
        url: `/auth/sign-in?q=${encodeURIComponent(`x@${domain}`)}`,
      });
      assert.ok(search.body.includes(`/auth/${a.slug}/sign-in`), search.body);
      assert.ok(!search.body.includes(`/auth/${b.slug}/sign-in`));

      // Removing A's provider releases the domain.
      assert.equal((await ctx().admin('DELETE', base(a))).statusCode, 204);
      const afterRelease = await ctx().admin('PUT', base(b), providerBody([domain]));
      assert.equal(afterRelease.statusCode, 200, afterRelease.body);
    });

    test('the console shows the refusals next to the fields', async () => {
      const taken = unique('Cee College');
      assert.equal(
        (await ctx().admin('POST', '/admin/v1/institutions', { slug: `cee-${counter}`, name: taken }))
          .statusCode,
        201,
      );
      const operator = await operatorBrowser(ctx());
      const create = await postForm(ctx(), operator, '/console/', [
        ['slug', `cee-copy-${counter}`],
        ['name', taken.toLowerCase()],
        ['time_zone', 'UTC'],
      ]);
      assert.equal(create.statusCode, 409, create.body.slice(0, 300));
      assert.match(create.body, /class="field-error"[^>]*>another institution[^<_]*</);

      const tenant = await seedTenant(ctx());
      assert.equal(
        (
          await ctx().admin(
            'PUT',
            `/admin/v1/institutions/${tenant.slug}/identity-provider`,
            providerBody([`d${counter}.example.org`]),
          )
        ).statusCode,
        200,
      );
      const admin = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const save = await postForm(ctx(), admin, `/console/${tenant.slug}/identity-provider`, [
        ['issuer', idp.issuer],
        ['client_id', TEST_CLIENT.client_id],
        ['client_secret', ''],
        ['email_domains', `d${counter}.example.org, mine.example.org`],
      ]);
      assert.equal(save.statusCode, 403, save.body.slice(0, 300));
      assert.match(save.body, /id="idp-email_domains-error">[^<_]+</);
    });
  },
  { config: { allowLoopbackOutbound: true } },
);

/** The migration, on a database holding names and domains shared before it. */
async function sharedBefore(db: Db) {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO institutions (slug, name, created_at) VALUES
       ('first', 'Bee College', now() - interval '2 days'),
       ('second', 'bee  college', now() - interval '1 day'),
       ('third', 'Sea College', now())
     RETURNING id`,
  );
  const [first, second, third] = rows.map((r) => r.id);
  await db.query(
    `INSERT INTO identity_providers (institution_id, issuer, client_id, client_secret_encrypted, email_domains, created_at, updated_at) VALUES
       ($1, 'https://a.example', 'a', 'x', '{b.example.org,a.example.org}', now() - interval '2 days', now()),
       ($2, 'https://b.example', 'b', 'x', '{b.example.org,c.example.org}', now() - interval '1 day', now()),
       ($3, 'https://c.example', 'c', 'x', '{}', now(), now())`,
    [first, second, third],
  );
  await migrate(db, listMigrations());
  const names = await db.query<{ slug: string; name: string }>(
    'SELECT slug, name FROM institutions ORDER BY slug',
  );
  assert.deepEqual(names.rows, [
    { slug: 'first', name: 'Bee College' },
    { slug: 'second', name: 'bee  college (second)' },
    { slug: 'third', name: 'Sea College' },
  ]);
  const domains = await db.query<{ slug: string; email_domains: string[] }>(
    `SELECT i.slug, ip.email_domains FROM identity_providers ip JOIN institutions i ON i.id = ip.institution_id ORDER BY i.slug`,
  );
  assert.deepEqual(domains.rows, [
    { slug: 'first', email_domains: ['a.example.org', 'b.example.org'] },
    { slug: 'second', email_domains: ['c.example.org'] },
    { slug: 'third', email_domains: [] },
  ]);
}

test('the migration keeps the oldest of a shared name or domain and tells the others apart', async () => {
  await onEachDatabaseBefore('0025', sharedBefore);
});
