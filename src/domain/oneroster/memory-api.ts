// The OneRoster memory as `ssp push oneroster` reads and writes it through the feeds' API
// (src/app/api/feeds/oneroster-memory.ts): pages in a stable order to read, what a page of
// enrollments placed, and changed entries to write (current at once, or staged for a push and
// made current when it completes), each checked here (the route checks only the envelope).
import type { Db, Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { KnownChange, KnownKind } from './known.ts';
import { stageChanges, storeMemory } from './memory.ts';
import { commitStaged, selectMemoryPage, selectPlaced } from './queries.ts';

export const MEMORY_PAGE_MAX = 5000;
export const KINDS: KnownKind[] = ['org', 'course', 'class', 'user', 'enrollment'];

export interface MemoryEntry {
  kind: KnownKind;
  sourced_id: string;
  data: Record<string, unknown>;
}

/** A page of the memory after `after` (kind and sourced_id), and where the next one starts. */
export async function readMemoryPage(
  db: Queryable,
  institutionId: string,
  after: { kind: string; sourced_id: string } | undefined,
  limit: number,
  /** Only these kinds (a push that asks for its enrollments' placements page by page skips them). */
  kinds?: string[],
): Promise<{ entries: MemoryEntry[]; next: { kind: string; sourced_id: string } | null }> {
  const rows = (await selectMemoryPage(db, institutionId, after, limit, kinds)) as MemoryEntry[];
  const last = rows.at(-1);
  return {
    entries: rows,
    next: rows.length === limit && last ? { kind: last.kind, sourced_id: last.sourced_id } : null,
  };
}

// No NUL: PostgreSQL's text cannot hold it.
const isText = (v: unknown, max = 1000) =>
  typeof v === 'string' && v.length >= 1 && v.length <= max && !v.includes('\u0000');

/** The fields each kind's data must have, all of them text (user: student may be null). */
function dataProblem(kind: KnownKind, data: Record<string, unknown>): string | undefined {
  const need = (...fields: string[]) => fields.find((f) => !isText(data[f]));
  if (kind === 'class') return need('unit', 'term');
  if (kind === 'course') return need('unit');
  if (kind === 'enrollment') return need('student', 'unit', 'term');
  if (kind === 'org') {
    if (!['campus', 'program', 'other'].includes(data.kind as string)) return 'kind';
    return typeof data.key === 'string' ? undefined : 'key';
  }
  if (data.student !== null && !isText(data.student)) return 'student';
  if (!Array.isArray(data.orgs) || data.orgs.some((o) => !isText(o))) return 'orgs';
  return undefined;
}

/** Only the fields the kind has: nothing else a client sends is stored. */
function clean(kind: KnownKind, data: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<KnownKind, string[]> = {
    class: ['unit', 'term'],
    course: ['unit'],
    enrollment: ['student', 'unit', 'term'],
    org: ['kind', 'key'],
    user: ['student', 'orgs'],
  };
  return Object.fromEntries(fields[kind].map((f) => [f, data[f]]));
}

/** What an enrollment placed, as the memory holds it. */
export interface Placement {
  sourced_id: string;
  student: string;
  unit: string;
  term: string;
}

/**
 * What each of these enrollments placed (only those the memory holds; the others placed
 * nothing it knows of). Any text is a sourcedId to look up: one the memory lacks answers nothing.
 */
export async function placedBy(
  db: Queryable,
  institutionId: string,
  sourcedIds: string[],
): Promise<Placement[]> {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return (await selectPlaced(db, institutionId, [...new Set(sourcedIds)])).map((r) => ({
    sourced_id: r.sourced_id,
    student: text(r.data.student),
    unit: text(r.data.unit),
    term: text(r.data.term),
  }));
}

/** A push's staged entries made current, in one transaction: all of them or, on a failure, none. */
export async function commitMemory(
  db: Db,
  institutionId: string,
  pushId: string,
  at: Date,
): Promise<{ stored: number; forgotten: number }> {
  return db.transaction((tx) => commitStaged(tx, institutionId, pushId, at));
}

/**
 * Checks and stores entries a push changed (data null: forgotten): current at once, or, with
 * `pushId`, staged for that push until it is committed. 400 names the first bad one.
 */
export async function writeMemory(
  db: Queryable,
  institutionId: string,
  entries: unknown[],
  at: Date,
  pushId?: string,
): Promise<{ stored: number; forgotten: number }> {
  const changes: KnownChange[] = entries.map((value, i) => {
    const bad = (field: string, detail: string): never => {
      throw new ApiError('invalid_field', { field: `entries[${i}]${field}`, detail });
    };
    const e = value as Record<string, unknown> | null;
    if (!e || typeof e !== 'object') return bad('', 'an entry is an object: kind, sourced_id, data');
    if (!KINDS.includes(e.kind as KnownKind)) bad('.kind', `kind is one of ${KINDS.join(', ')}`);
    if (!isText(e.sourced_id)) bad('.sourced_id', 'sourced_id is 1 to 1000 characters');
    const kind = e.kind as KnownKind;
    if (e.data === null) return { kind, sourcedId: e.sourced_id as string, data: null, student: null };
    if (!e.data || typeof e.data !== 'object' || Array.isArray(e.data))
      bad('.data', 'data is an object, or null to forget the entry');
    const data = e.data as Record<string, unknown>;
    const field = dataProblem(kind, data);
    if (field) bad(`.data.${field}`, `a ${kind} entry's data has a wrong or missing ${field}`);
    const student =
      kind === 'user' || kind === 'enrollment' ? ((data.student as string | null) ?? null) : null;
    return { kind, sourcedId: e.sourced_id as string, data: clean(kind, data), student };
  });
  // One entry named twice in a request: the last says it (an upsert cannot touch a row twice).
  const unique = new Map(changes.map((c) => [`${c.kind}\u0000${c.sourcedId}`, c]));
  if (pushId) return stageChanges(db, institutionId, pushId, [...unique.values()], at);
  return storeMemory(db, institutionId, unique.values(), at);
}
