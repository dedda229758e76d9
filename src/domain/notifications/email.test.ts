import assert from 'node:assert/strict';
import { test } from 'node:test';
import { composeEmail, type EmailFacts } from './email.ts';

const facts: EmailFacts = {
  notificationId: '11111111-1111-4111-8111-111111111111',
  reason: 'crisis',
  helpRequestId: '22222222-2222-4222-8222-222222222222',
  priority: 'crisis',
  requestCreatedAt: new Date('2026-11-25T18:20:00Z'),
  institutionName: 'North College',
  institutionSlug: 'north',
  timeZone: 'Australia/Sydney',
  publicBaseUrl: 'https://support.example.edu/',
};

test('a crisis email: a plain subject, the link, the priority and the time in the institution’s zone', () => {
  const email = composeEmail(facts);
  assert.equal(email.subject, 'New crisis request at North College');
  assert.match(
    email.text,
    /https:\/\/support\.example\.edu\/console\/north\/inbox\/22222222-2222-4222-8222-222222222222/,
  );
  assert.match(email.text, /Priority: Crisis/);
  assert.match(email.text, /Raised: 2026-11-26 05:20 Australia\/Sydney/);
  assert.equal(email.messageId, '<11111111-1111-4111-8111-111111111111@support.example.edu>');
});

test('subjects by reason, and a name cannot add header lines', () => {
  assert.equal(
    composeEmail({ ...facts, reason: 'new', priority: 'normal' }).subject,
    'New help request at North College',
  );
  assert.equal(
    composeEmail({ ...facts, reason: 'assigned', institutionName: 'North\r\nBcc: x@y' }).subject,
    'A help request was assigned to you at North Bcc: x@y',
  );
});

test('the HTML part escapes the institution’s name', () => {
  const email = composeEmail({ ...facts, institutionName: '<b>North</b>' });
  assert.match(email.html, /&#60;b&#62;North/);
  assert.doesNotMatch(email.html, /<b>North/);
});
