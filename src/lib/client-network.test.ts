import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientNetwork } from './client-network.ts';

test('an address is counted by its /24 (IPv4) or /64 (IPv6) network', () => {
  assert.equal(clientNetwork('203.0.113.7'), '203.0.113.0/24');
  assert.equal(clientNetwork('203.0.113.250'), '203.0.113.0/24');
  assert.equal(clientNetwork('::ffff:203.0.113.9'), '203.0.113.0/24');
  assert.equal(clientNetwork('::ffff:cb00:7109'), '203.0.113.0/24');
  assert.equal(clientNetwork('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(clientNetwork('2001:DB8:1:2::9'), '2001:db8:1:2::/64');
  assert.equal(clientNetwork('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientNetwork('::1'), '0:0:0:0::/64');
  assert.equal(clientNetwork('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(clientNetwork('not-an-address'), 'not-an-address');
});
