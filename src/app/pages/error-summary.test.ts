import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SUMMARY_MARK, withErrorSummary } from './error-summary.ts';

test('every field problem of the page is listed at the top, each a link to its field', () => {
  const page = `<main>${SUMMARY_MARK}<h1>Add</h1><form>
    <input id="endpoint-url"><p class="field-error" id="endpoint-url-error">Enter the URL</p>
    <fieldset><p class="field-error" id="add-types-error">Choose a type &amp; more</p></fieldset>
  </form></main>`;
  const shown = withErrorSummary(page);
  assert.match(shown, /<main><div class="error-summary" role="alert"/);
  assert.match(shown, /There are 2 problems/);
  assert.match(shown, /<li><a href="#endpoint-url">Enter the URL<\/a><\/li>/);
  // No element holds the fieldset's id: the link goes to its message.
  assert.match(shown, /<li><a href="#add-types-error">Choose a type &amp; more<\/a><\/li>/);
  assert.equal(withErrorSummary(`<main>${SUMMARY_MARK}<h1>Fine</h1></main>`), '<main><h1>Fine</h1></main>');
});
