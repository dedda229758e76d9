import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InviteBody, type Person, PersonChangeBody, ProviderBody } from '../../../domain/people/schemas.ts';
import { checkForm } from '../form-check.ts';
import * as view from './people-view.ts';

const person: Person = {
  id: '0d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d',
  email: 'kai@example.edu',
  name: 'Kai Lee',
  roles: ['staff'],
  permissions: [],
  linked: false,
  last_sign_in_at: null,
  created_at: new Date('2026-03-04T10:00:00Z'),
  updated_at: new Date('2026-03-04T10:00:00Z'),
};

test('the people page: everyone, an invite form for staff, the provider as configured', () => {
  const none = view.peopleView([person], undefined);
  assert.deepEqual(none.people, [person]);
  assert.equal(none.idp, undefined);
  assert.deepEqual(none.invite, { roles: ['staff'], permissions: [] });
  assert.deepEqual(none.provider, { issuer: '', client_id: '', email_domains: '' });
  const idp = {
    issuer: 'https://sso.example.edu',
    client_id: 'ssp',
    client_secret_set: true as const,
    email_domains: ['example.edu', 'staff.example.edu'],
    links_held_since: null,
    created_at: new Date(),
    updated_at: new Date(),
  };
  assert.deepEqual(view.peopleView([], idp).provider, {
    issuer: 'https://sso.example.edu',
    client_id: 'ssp',
    email_domains: 'example.edu, staff.example.edu',
  });
});

test('the provider form shows the full redirect URI to register, at the public base URL', () => {
  assert.equal(
    view.peopleView([], undefined, 'https://support.example.edu/').redirectUri,
    'https://support.example.edu/auth/callback',
  );
  assert.equal(
    view.peopleView([], undefined, 'https://example.edu/support').redirectUri,
    'https://example.edu/support/auth/callback',
  );
});

test('the invite form is checked with the API schema: every field at once, in sentences', () => {
  const values = view.inviteValues({ email: ' not an email ', name: '', permissions: 'root' });
  assert.deepEqual(values, { email: 'not an email', name: '', roles: [], permissions: ['root'] });
  const checked = checkForm(InviteBody, values, view.personFields);
  assert.equal(checked.ok, false);
  if (checked.ok) return;
  assert.deepEqual(Object.keys(checked.errors).sort(), ['email', 'name', 'permissions', 'roles']);
  assert.equal(checked.errors.name, 'Enter a name');
  assert.equal(checked.errors.roles, 'Choose a role: admin, staff or both');
  assert.match(checked.errors.email, /^Enter an email address/);
  const good = checkForm(
    InviteBody,
    view.inviteValues({ email: 'a@example.edu', name: 'A', roles: ['admin', 'staff'] }),
    view.personFields,
  );
  assert.equal(good.ok, true);
});

test("a person's form and page; the confirmations name the person", () => {
  assert.deepEqual(view.personValues({ name: ' Kai ', roles: 'admin' }), {
    name: 'Kai',
    roles: ['admin'],
    permissions: [],
  });
  assert.equal(
    checkForm(PersonChangeBody, view.personValues({ name: 'Kai', roles: 'staff' }), view.personFields).ok,
    true,
  );
  const page = view.personView(person, '/console/x/people');
  assert.equal(page.title, 'Kai Lee');
  assert.equal(page.values, person);
  const remove = view.personConfirmView(person, 'remove', '/console/x/people');
  assert.equal(remove.title, 'Remove Kai Lee?');
  assert.equal(remove.action, `/console/x/people/${person.id}/remove`);
  assert.equal(remove.back, `/console/x/people/${person.id}`);
  assert.match(remove.message, /kai@example\.edu/);
  const sessions = view.personConfirmView(person, 'sessions', '/console/x/people');
  assert.equal(sessions.title, 'End Kai Lee’s sessions?');
  assert.equal(sessions.button, 'End their sessions');
});

test('the provider form: domains split on commas and spaces, an empty secret keeps the stored one', () => {
  const values = view.providerValues({
    issuer: 'https://sso.example.edu',
    client_id: 'ssp',
    email_domains: 'a.edu, b.edu  c.edu',
  });
  assert.deepEqual(view.providerInput(values, ''), {
    issuer: 'https://sso.example.edu',
    client_id: 'ssp',
    email_domains: ['a.edu', 'b.edu', 'c.edu'],
  });
  assert.equal(view.providerInput(values, 's3cret').client_secret, 's3cret');
  const bad = checkForm(
    ProviderBody,
    view.providerInput({ ...values, issuer: '', client_id: '' }, ''),
    view.providerFields,
  );
  assert.equal(bad.ok, false);
  if (!bad.ok) assert.deepEqual(Object.keys(bad.errors).sort(), ['client_id', 'issuer']);
});
