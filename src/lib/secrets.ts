// Secrets: generated with a recognisable prefix, stored only as SHA-256, compared in
// constant time. Plaintext is returned once to the caller that asked for it and never logged.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretPrefix = 'ssp_roster_' | 'ssp_sync_' | 'ssp_op_' | 'ssp_sess_' | 'ssp_link_' | 'whsec_';

export function generateSecret(prefix: SecretPrefix): string {
  // 32 random bytes, base64url: 43 characters of entropy after the prefix.
  return prefix + randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  if (left.length !== right.length || left.length === 0) return false;
  return timingSafeEqual(left, right);
}

/** Extracts the token of an `Authorization: Bearer <token>` header; undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}
