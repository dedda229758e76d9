// The API reference: the OpenAPI document (title, servers, tags, listing rows field by field)
// and the reference page, which must work with no other host reachable.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import vm from 'node:vm';
import { referenceScript, SCRIPT_BUNDLE } from '../../src/app/api/reference-script.ts';
import { startTestApp } from '../helpers/app.ts';

test('the OpenAPI document has a title, a server, one tag for the SIS feeds and typed listing rows', async () => {
  const ctx = await startTestApp('pglite', { env: { PUBLIC_BASE_URL: 'https://ssp.example.edu' } });
  try {
    const doc = (await ctx.request({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.info.title, 'Student Support Platform API');
    assert.deepEqual(doc.servers, [{ url: 'https://ssp.example.edu' }]);
    assert.deepEqual(doc.paths['/api/sis/sync'].post.tags, ['sis']);
    assert.deepEqual(doc.paths['/api/sis/enrolments'].post.tags, ['sis']);
    assert.ok(doc.tags.some((t: { name: string }) => t.name === 'sis'));
    for (const listing of [
      'students',
      'programs',
      'campuses',
      'audience-tags',
      'cohorts',
      'terms',
      'units',
      'enrolments',
      'runs',
      'help-requests',
      'full-syncs',
      'webhook-endpoints',
    ]) {
      const get = doc.paths[`/admin/v1/institutions/{slug}/${listing}`].get;
      const page = get.responses['200'].content['application/json'].schema;
      assert.deepEqual(page.required, ['items', 'next_cursor'], listing);
      const row = page.properties.items.items;
      assert.equal(row.type, 'object', listing);
      assert.ok(Object.keys(row.properties).length >= 3, `${listing} rows are described field by field`);
      assert.ok(
        get.parameters.some((p: { name: string }) => p.name === 'cursor'),
        `${listing} takes a cursor`,
      );
    }
    const students = doc.paths['/admin/v1/institutions/{slug}/students'].get;
    const names = students.parameters.map((p: { name: string }) => p.name);
    for (const name of ['q', 'email', 'student_id_ext', 'cohort_id', 'program', 'campus', 'status', 'format'])
      assert.ok(names.includes(name), name);
    assert.ok(doc.paths['/admin/v1/institutions/{slug}/students.csv']);
    assert.ok(doc.paths['/admin/v1/institutions/{slug}/runs/{runId}/errors.csv']);
  } finally {
    await ctx.close();
  }
});

test('the reference page loads nothing from other hosts and hides the hosted-only buttons', async () => {
  const ctx = await startTestApp('pglite');
  try {
    const page = await ctx.request({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(sources.length > 0);
    for (const source of sources) assert.doesNotMatch(source, /^(https?:)?\/\//, source);
    for (const setting of [
      '"withDefaultFonts": false',
      '"hideClientButton": true',
      '"hideTestRequestButton": true',
      '"telemetry": false',
    ])
      assert.ok(page.body.includes(setting), setting);
    const script = await ctx.request({ method: 'GET', url: '/docs/js/scalar.js' });
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['content-type'], 'application/javascript; charset=utf-8');
    // The script decoded out of the plugin's bundle is the string the plugin itself would send.
    const bundle = fs.readFileSync(SCRIPT_BUNDLE, 'utf8');
    const start = bundle.indexOf('var standalone_default = "') + 'var standalone_default = '.length;
    const literal = vm.runInNewContext(bundle.slice(start, bundle.indexOf('";\n//#endregion', start) + 1));
    assert.ok(literal.length > 1_000_000);
    assert.ok(script.rawPayload.equals(Buffer.from(literal, 'utf8')), 'the script is the literal, decoded');
    // Decoded once when the routes were registered, and every request answered from those bytes.
    assert.equal(referenceScript(), referenceScript());
    assert.ok(script.rawPayload.equals(await referenceScript()));
    const again = await ctx.request({ method: 'GET', url: '/docs/js/scalar.js' });
    assert.ok(again.rawPayload.equals(script.rawPayload));
    const docs = await ctx.request({ method: 'GET', url: '/docs' });
    assert.equal(docs.statusCode, 301);
    assert.equal(docs.headers.location, '/docs/');
    const document = await ctx.request({ method: 'GET', url: '/docs/openapi.json' });
    assert.equal(document.json().info.title, 'Student Support Platform API');
    const yaml = await ctx.request({ method: 'GET', url: '/docs/openapi.yaml' });
    assert.match(yaml.body, /^openapi: 3\.1\.0$/m);
    const doc = (await ctx.request({ method: 'GET', url: '/openapi.json' })).json();
    assert.deepEqual(doc.servers, [{ url: 'http://localhost:3000' }]);
  } finally {
    await ctx.close();
  }
});
