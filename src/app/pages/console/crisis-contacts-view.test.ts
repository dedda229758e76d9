import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkContacts,
  contactProblems,
  MAX_CRISIS_CONTACTS,
} from '../../../domain/students/crisis-contacts.ts';
import {
  blank,
  contactsOf,
  placeRefusal,
  postedRows,
  problemErrors,
  savedRows,
} from './crisis-contacts-view.ts';

const contact = { name: 'Security', phone: '555 0100', url: null, hours: '24/7', description: null };

test('saved contacts become rows, with a blank row to add one while there is room', () => {
  const { rows, saved } = savedRows([contact]);
  assert.deepEqual(rows, [
    { name: 'Security', phone: '555 0100', url: '', hours: '24/7', description: '' },
    blank(),
  ]);
  assert.deepEqual(saved, [true]);
  assert.equal(savedRows(Array(MAX_CRISIS_CONTACTS).fill(contact)).rows.length, MAX_CRISIS_CONTACTS);
});

test('posted rows: blank and removed rows are left out; each contact knows its row', () => {
  const posted = postedRows({
    rows: '3',
    name_0: 'A',
    phone_0: '1',
    remove_0: 'yes',
    saved_0: 'yes',
    name_2: ' C ',
    url_2: 'https://c.example',
  });
  assert.deepEqual(posted.removed, [true, false, false]);
  assert.deepEqual(posted.saved, [true, false, false]);
  const { contacts, rowOf } = contactsOf(posted.rows, posted.removed);
  assert.deepEqual(contacts, [
    { name: 'C', phone: null, url: 'https://c.example', hours: null, description: null },
  ]);
  assert.deepEqual(rowOf, [2]);
  assert.equal(postedRows({ rows: '500' }).rows.length, MAX_CRISIS_CONTACTS);
});

test("a refusal of contacts[i].field sits next to that field of its row, in the field's words", () => {
  const placed = placeRefusal(
    {
      error: 'invalid_field',
      field: 'contacts[0].url',
      detail: 'contacts[0].url must be an https:// or http:// address',
    },
    [2],
  );
  assert.deepEqual(placed, {
    errors: { url_2: 'The web address must be an https:// or http:// address' },
  });
  assert.deepEqual(placeRefusal({ error: 'invalid_field', field: 'contacts', detail: 'at most 10' }, []), {
    errors: {},
    formError: 'at most 10',
  });
});

test("every contact's every problem at once, as sentences next to its row's fields", () => {
  const rows = [blank(), blank(), blank()];
  rows[0].phone = 'call us';
  rows[2] = { ...rows[2], name: 'N'.repeat(201), url: 'nightline.example.org' };
  const { contacts, rowOf } = contactsOf(rows, [false, false, false]);
  const shown = problemErrors(contacts.flatMap(contactProblems), rowOf);
  assert.deepEqual(shown, {
    errors: {
      name_0: 'Enter a name',
      phone_0: 'Enter a phone number of digits, spaces and + ( ) - . (at least three digits)',
      name_2: 'Name must be 200 characters or fewer',
      url_2: 'Enter a web address starting with https:// or http://',
    },
  });
  const unreachable = contactsOf([{ ...blank(), name: 'Night line' }], [false]);
  assert.deepEqual(problemErrors(unreachable.contacts.flatMap(contactProblems), unreachable.rowOf), {
    errors: { phone_0: 'Enter a phone number or a web address to reach them' },
  });
  // The API reports the first of them, as before.
  assert.throws(() => checkContacts(contacts), /contacts\[0\]\.name is required/);
});
