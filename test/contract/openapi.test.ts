// The API's contract, held still: the OpenAPI document the service serves must equal the copy
// committed beside this test. A change to an endpoint, a field, a parameter or a description
// fails here until the copy is regenerated (`npm run contract:update`) and the difference is
// reviewed in the commit: no contract change by accident (docs/versioning.md).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { servedOpenApi } from './served.ts';

const committed = path.join(import.meta.dirname, 'openapi.json');

test('the served OpenAPI document is the committed contract', async () => {
  const served = await servedOpenApi();
  const expected = JSON.parse(fs.readFileSync(committed, 'utf8'));
  assert.deepEqual(
    served,
    expected,
    'the API contract changed: review the difference, then run `npm run contract:update` and commit test/contract/openapi.json',
  );
});
