import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { classifyFailure, SIGN_IN_ERROR_CODES, SignInError, type SignInStep } from './sign-in-error.ts';

const ope = (code: string, message: string, cause?: object) =>
  Object.assign(new Error(message, { cause }), { code });
const wrapped = (inner: Error) =>
  Object.assign(new Error('wrapped', { cause: inner }), { code: (inner as { code?: string }).code });

test('network failures, refused addresses and timeouts', () => {
  const fetchFailed = (code: string) =>
    new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
  for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT', 'ECONNRESET'])
    assert.equal(classifyFailure(fetchFailed(code), 'discovery').code, 'provider_unreachable');
  assert.equal(classifyFailure(fetchFailed('E_BLOCKED_ADDRESS'), 'exchange').code, 'url_not_allowed');
  assert.equal(
    classifyFailure(new DOMException('timed out', 'TimeoutError'), 'exchange').code,
    'provider_unreachable',
  );
  assert.equal(
    classifyFailure(ope('OAUTH_HTTP_REQUEST_FORBIDDEN', 'https only'), 'discovery').code,
    'url_not_allowed',
  );
});

test('OAuth errors from the callback and the token endpoint', () => {
  const callbackError = (error: string) =>
    Object.assign(new Error('authorization response from the server is an error'), {
      code: 'OAUTH_AUTHORIZATION_RESPONSE_ERROR',
      error,
    });
  assert.equal(classifyFailure(callbackError('access_denied'), 'exchange').code, 'access_denied');
  assert.equal(classifyFailure(callbackError('login_required'), 'exchange').code, 'provider_error');
  const body = (error: string) =>
    Object.assign(new Error('server responded with an error'), { code: 'OAUTH_RESPONSE_BODY_ERROR', error });
  assert.equal(classifyFailure(body('invalid_grant'), 'exchange').code, 'code_rejected');
  assert.equal(classifyFailure(body('invalid_client'), 'exchange').code, 'client_rejected');
  assert.equal(classifyFailure(body('server_error'), 'exchange').code, 'provider_error');
});

test('id token checks', () => {
  const claim = (code: string, name: string) => wrapped(ope(code, `unexpected ${name}`, { claim: name }));
  const cases: [thrown: Error, expected: string][] = [
    [claim('OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'exp'), 'token_expired'],
    [claim('OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'iat'), 'token_invalid'],
    [claim('OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'iss'), 'issuer_mismatch'],
    [claim('OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'aud'), 'audience_mismatch'],
    [claim('OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'azp'), 'audience_mismatch'],
    [claim('OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'nonce'), 'nonce_mismatch'],
    [ope('OAUTH_KEY_SELECTION_FAILED', 'no key'), 'token_invalid'],
    [ope('OAUTH_INVALID_RESPONSE', 'JWT signature verification failed'), 'token_invalid'],
  ];
  for (const [thrown, expected] of cases) {
    assert.equal(classifyFailure(thrown, 'exchange').code, expected, thrown.message);
  }
});

test('a SignInError passes through unchanged; the library error is kept only as the cause', () => {
  const original = new SignInError('state_mismatch', 'x');
  assert.equal(classifyFailure(original, 'exchange'), original);
  const inner = new Error('library detail');
  const classified = classifyFailure(inner, 'discovery');
  assert.equal(classified.code, 'discovery_failed');
  assert.equal(classified.cause, inner);
  assert.ok(!classified.message.includes('library detail'));
});

test('anything thrown becomes a SignInError with a known code', () => {
  const steps: SignInStep[] = ['discovery', 'exchange', 'userinfo'];
  fc.assert(
    fc.property(fc.anything(), fc.constantFrom(...steps), (thrown, step) => {
      const error = classifyFailure(thrown, step);
      assert.ok(error instanceof SignInError);
      assert.ok((SIGN_IN_ERROR_CODES as readonly string[]).includes(error.code));
      assert.ok(error.message.length > 0);
    }),
  );
});
