// Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
// `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 keyed with the base64-decoded part
// of the `whsec_` secret; the header carries `v1,<base64 signature>`, space-separated when
// several secrets are in use (during a rotation window).
import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (standard base64, as verifiers expect). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function secretKey(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

const signingKeys = new Map<string, KeyObject>();
const SIGNING_KEYS_KEPT = 1000;

/**
 * The HMAC key of a secret, built once and kept (up to 1000 secrets, then the set starts again):
 * HMAC over a Buffer builds a key object every time, which was most of a signature's cost
 * (about 65 of 80 microseconds a delivery).
 */
export function signingKey(secret: string): KeyObject {
  let key = signingKeys.get(secret);
  if (!key) {
    if (signingKeys.size >= SIGNING_KEYS_KEPT) signingKeys.clear();
    key = createSecretKey(secretKey(secret));
    signingKeys.set(secret, key);
  }
  return key;
}

export function sign(key: Buffer | KeyObject, id: string, timestamp: number, body: string | Buffer): string {
  const hmac = createHmac('sha256', key);
  hmac.update(`${id}.${timestamp}.`);
  hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}

/** The `webhook-signature` header value: one `v1,` signature per key, space-separated. */
export function signatureHeader(
  keys: (Buffer | KeyObject)[],
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  return keys.map((key) => sign(key, id, timestamp, body)).join(' ');
}
