// Opaque paging cursors of the admin listings. A listing is read in a fixed order (its sort
// key, ending with a unique tie-breaker such as the id); a cursor carries the sort key of the
// last row returned, and the next page starts strictly after it (keyset paging). Unlike an
// offset, a page then costs the same however deep into the listing it is, and rows inserted
// or deleted meanwhile never shift a page.
//
// Wire form: base64url(JSON [listing, ...key]) "." base64url(first 6 bytes of its SHA-256).
// The checksum is not a secret (anyone can compute it): it makes an edited or truncated
// cursor fail as `invalid_cursor` instead of silently starting elsewhere. Every key part is
// also checked against the type the query casts it to, so no cursor, however built, can make
// a statement fail: the worst it can do is start the (institution-scoped) listing elsewhere.
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { uuidPattern } from './ids.ts';
import { isStorableText } from './text.ts';

/** The type of one part of a sort key, as the query casts it (`int32`: a 4-byte integer, `int`: a bigint). */
export type KeyPart = 'text' | 'uuid' | 'timestamp' | 'date' | 'int' | 'int32';

export type CursorKey = readonly (string | number)[];

/** A listing's name (cursors of one listing are refused by another) and its sort key's parts. */
export interface KeysetOrder {
  readonly listing: string;
  readonly key: readonly KeyPart[];
}

/** The longest cursor accepted; keys hold at most a few short values. */
export const MAX_CURSOR_LENGTH = 4096;

export function encodeCursor(order: KeysetOrder, key: CursorKey): string {
  const payload = Buffer.from(JSON.stringify([order.listing, ...key]), 'utf8');
  return `${payload.toString('base64url')}.${checksum(payload)}`;
}

/** The key a cursor carries, or 400 invalid_cursor. */
export function decodeCursor(order: KeysetOrder, cursor: string): CursorKey {
  const key = parse(order, cursor);
  if (!key) {
    throw new ApiError('invalid_cursor', {
      field: 'cursor',
      detail: 'cursor: not a next_cursor of this listing; start again without a cursor',
    });
  }
  return key;
}

function parse(order: KeysetOrder, cursor: string): CursorKey | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{8})$/.exec(cursor);
  if (!match) return undefined;
  const payload = Buffer.from(match[1], 'base64url');
  // base64url decoding ignores stray bits; re-encoding must give back exactly what was sent.
  if (payload.toString('base64url') !== match[1] || checksum(payload) !== match[2]) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== order.key.length + 1 || parsed[0] !== order.listing)
    return undefined;
  const key = parsed.slice(1) as unknown[];
  return key.every((value, i) => validPart(order.key[i], value)) ? (key as CursorKey) : undefined;
}

function checksum(payload: Buffer): string {
  return createHash('sha256').update(payload).digest().subarray(0, 6).toString('base64url');
}

const timestampPattern =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-](\d{2})(?::?(\d{2}))?)$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

function validPart(part: KeyPart, value: unknown): boolean {
  switch (part) {
    case 'int':
      return Number.isSafeInteger(value);
    case 'int32':
      return Number.isSafeInteger(value) && Math.abs(value as number) < 2 ** 31;
    case 'uuid':
      return typeof value === 'string' && uuidPattern.test(value);
    case 'text':
      return typeof value === 'string' && value.length <= 2000 && isStorableText(value);
    case 'date': {
      const m = typeof value === 'string' ? datePattern.exec(value) : null;
      return m !== null && validDate(m[1], m[2], m[3]);
    }
    case 'timestamp': {
      const m = typeof value === 'string' ? timestampPattern.exec(value) : null;
      return (
        m !== null &&
        validDate(m[1], m[2], m[3]) &&
        Number(m[4]) < 24 &&
        Number(m[5]) < 60 &&
        Number(m[6]) < 60 &&
        validOffset(m[9], m[10])
      );
    }
  }
}

/** A UTC offset PostgreSQL takes: at most 15:59 either way (beyond, SQLSTATE 22009). */
function validOffset(hours: string | undefined, minutes: string | undefined): boolean {
  if (hours === undefined) return true;
  return Number(hours) <= 15 && Number(minutes ?? 0) < 60;
}

function validDate(year: string, month: string, day: string): boolean {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}
