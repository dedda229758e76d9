import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adminChangeWords, adminSentence } from './audit-sentences.ts';

test('an admin change in a sentence, the same through the console and the API', () => {
  const url = 'https://hooks.example.com/ssp';
  for (const action of [
    'POST /console/:slug/webhooks/:id/delete',
    'DELETE /admin/v1/institutions/:slug/webhook-endpoints/:id',
  ]) {
    assert.equal(
      adminSentence({ actor: 'Ira Admin', action, subject: url }),
      `Ira Admin deleted the webhook endpoint ${url}`,
    );
  }
  // Written before the words were kept: the thing in general.
  assert.equal(
    adminChangeWords('POST /console/:slug/webhooks/:id/delete', null),
    'deleted a webhook endpoint',
  );
  assert.equal(adminChangeWords('POST /admin/v1/institutions', null), 'created an institution');
  assert.equal(adminChangeWords('DELETE /admin/v1/institutions/:slug/people/:id'), 'removed someone');
  assert.equal(adminChangeWords('POST /admin/v1/institutions/:slug/people', 'Bo Staff'), 'invited Bo Staff');
});

test('issued and rolled told apart', () => {
  assert.match(adminChangeWords('POST /console/:slug/secrets/help-sync'), /^issued a help-sync secret$/);
  assert.match(
    adminChangeWords('POST /admin/v1/institutions/:slug/help-sync-secret/rotate'),
    /^rolled the help-sync secret/,
  );
  assert.match(adminChangeWords('POST /console/:slug/secrets/roster'), /^issued a roster secret$/);
  assert.match(
    adminChangeWords('POST /console/:slug/webhooks/:id/rotate', 'https://x.example'),
    /^rolled the signing secret .* of the webhook endpoint https:\/\/x\.example$/,
  );
});

test('an unknown route still says something true', () => {
  assert.equal(adminChangeWords('POST /console/:slug/something-new'), 'made a change (POST something-new)');
});
