import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../errors.ts';
import { assertMayChangeGrants } from './grant-changes.ts';
import type { Caller, Permission, Role } from './policy.ts';

const person = (id: string, permissions: Permission[] = []): Caller => ({
  kind: 'person',
  personId: id,
  institutionId: 'i1',
  roles: ['admin'],
  permissions,
  actor: id,
  sessionId: 's',
});
const grants = (roles: Role[], permissions: Permission[] = []) => ({ roles, permissions });
const refusal = (fn: () => void) => {
  try {
    fn();
    return 'allowed';
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error.code;
  }
};

test('Manage integrations changes hands only through its holders or the operator', () => {
  const plain = person('p1');
  const holder = person('p2', ['manage_integrations']);
  const operator: Caller = { kind: 'operator', actor: 'operator' };
  const target = { id: 'p3', ...grants(['admin']) };
  const withIt = grants(['admin'], ['manage_integrations']);
  assert.equal(
    refusal(() => assertMayChangeGrants(plain, target, withIt)),
    'manage_integrations_required',
  );
  assert.equal(
    refusal(() => assertMayChangeGrants(plain, undefined, withIt)),
    'manage_integrations_required',
  );
  assert.equal(
    refusal(() => assertMayChangeGrants(holder, target, withIt)),
    'allowed',
  );
  assert.equal(
    refusal(() => assertMayChangeGrants(operator, target, withIt)),
    'allowed',
  );
  // Taking it away, directly or with the admin role it needs.
  const holderTarget = { id: 'p3', ...withIt };
  assert.equal(
    refusal(() => assertMayChangeGrants(plain, holderTarget, grants(['admin']))),
    'manage_integrations_required',
  );
  assert.equal(
    refusal(() => assertMayChangeGrants(plain, holderTarget, grants(['staff']))),
    'manage_integrations_required',
  );
  // Other changes to anyone stay with any admin; nothing changed is nothing to refuse.
  assert.equal(
    refusal(() => assertMayChangeGrants(plain, target, grants(['admin', 'staff']))),
    'allowed',
  );
  assert.equal(
    refusal(() => assertMayChangeGrants(plain, holderTarget, withIt)),
    'allowed',
  );
});

test('nobody changes their own roles or permissions', () => {
  const me = person('p1', ['manage_integrations']);
  const self = { id: 'p1', ...grants(['admin'], ['manage_integrations']) };
  assert.equal(
    refusal(() => assertMayChangeGrants(me, self, grants(['admin']))),
    'own_roles_unchangeable',
  );
  assert.equal(
    refusal(() => assertMayChangeGrants(me, self, grants(['admin', 'staff'], ['manage_integrations']))),
    'own_roles_unchangeable',
  );
  assert.equal(
    refusal(() => assertMayChangeGrants(me, self, grants(['admin'], ['manage_integrations']))),
    'allowed',
  );
});
