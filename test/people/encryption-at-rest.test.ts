// Secrets the service must use again are encrypted at rest: a copy of the database alone
// reveals none of them. Plaintext from before, and values under a rotated-out key, are sealed
// anew by resealSecrets (run at every start and by `ssp encryption-rotate`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resealSecrets } from '../../src/domain/secrets/reseal.ts';
import { createKeyring, generateKey, parseKey } from '../../src/lib/encryption.ts';
import { describeEachDatabase, seedTenant, TEST_ENCRYPTION_KEY } from '../helpers/app.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

describeEachDatabase(
  'encryption at rest',
  (ctx) => {
    test('webhook signing keys are stored sealed, and plaintext ones are sealed by the reseal', async () => {
      const tenant = await seedTenant(ctx());
      const { id, secret } = await addEndpoint(ctx(), tenant, { url: 'http://127.0.0.1:9/ssp' });
      const read = async () =>
        (await ctx().db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [id]))
          .rows[0].secret;
      const stored = await read();
      assert.match(stored, /^enc:v1:/);
      assert.ok(!stored.includes(secret.slice(6, 30)));
      assert.equal(ctx().deps.keyring.decrypt(stored), secret);

      // A row written before encryption at rest (plaintext) is sealed by the reseal.
      await ctx().db.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1', [id, secret]);
      const counts = await resealSecrets(ctx().db, ctx().deps.keyring);
      assert.ok(counts['webhook_endpoints.secret'] >= 1);
      assert.equal(ctx().deps.keyring.decrypt(await read()), secret);
    });

    test('key rotation: the new key seals, the previous one still opens until the reseal is done', async () => {
      const tenant = await seedTenant(ctx());
      const { id, secret } = await addEndpoint(ctx(), tenant, { url: 'http://127.0.0.1:9/rotate' });
      const oldKey = parseKey(TEST_ENCRYPTION_KEY)!;
      const newKey = parseKey(generateKey())!;
      const rotated = createKeyring(newKey, [oldKey]);
      await resealSecrets(ctx().db, rotated);
      const { rows } = await ctx().db.query<{ secret: string }>(
        'SELECT secret FROM webhook_endpoints WHERE id = $1',
        [id],
      );
      assert.ok(rotated.isCurrent(rows[0].secret));
      assert.equal(createKeyring(newKey).decrypt(rows[0].secret), secret, 'the old key is no longer needed');
      // Put it back under the test key for the other tests sharing this database.
      await resealSecrets(ctx().db, createKeyring(oldKey, [newKey]));
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
