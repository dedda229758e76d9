// The service's memory of what completed OneRoster pushes and pulls placed, per institution
// (migration 0071), so that a delta resolves what it omits the same way from any machine: the
// pull reads it before mapping and stores what changed once it applied everything; `ssp push
// oneroster` reads and writes it through the feeds' API (src/app/api/oneroster-memory.ts).
import type { Db, Queryable } from '../../db/db.ts';
import { emptyKnown, type Known, type KnownChange, type KnownKind, type OrgKind } from './known.ts';
import { forgetMemory, selectMemory, stageMemory, upsertMemory } from './queries.ts';

/** Entries written per statement. */
const PAGE = 5000;

/**
 * Entries written per statement by background work: fewer on the embedded database, one session
 * that requests wait for while a statement runs (a statement of 5,000 took 90-270 ms there,
 * docs/performance.md); the statements are not one transaction, so requests go between them.
 */
export function memoryPageFor(kind: Db['kind']): number {
  return kind === 'pglite' ? 1_000 : PAGE;
}

/** One stored entry put into a memory being built. */
export function addEntry(
  known: Known,
  kind: KnownKind,
  sourcedId: string,
  data: Record<string, unknown>,
): void {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (kind === 'user') {
    if (typeof data.student === 'string') {
      const orgs = Array.isArray(data.orgs) ? data.orgs.map(text) : [];
      known.students[sourcedId] = [data.student, ...orgs];
    } else known.others.push(sourcedId);
  } else if (kind === 'class') known.classes[sourcedId] = [text(data.unit), text(data.term)];
  else if (kind === 'course') known.courses[sourcedId] = text(data.unit);
  else if (kind === 'org') known.orgs[sourcedId] = [text(data.kind) as OrgKind, text(data.key)];
  else known.enrollments[sourcedId] = [text(data.student), text(data.unit), text(data.term)];
}

/** The institution's memory, as the mapping reads it. */
export async function loadMemory(db: Queryable, institutionId: string): Promise<Known> {
  const known = emptyKnown();
  for (const row of await selectMemory(db, institutionId))
    addEntry(known, row.kind as KnownKind, row.sourced_id, row.data);
  return known;
}

/** Stores what a push or pull changed: a fixed number of statements per `page` entries. */
export async function storeMemory(
  db: Queryable,
  institutionId: string,
  changes: Iterable<KnownChange>,
  at: Date,
  page = PAGE,
): Promise<{ stored: number; forgotten: number }> {
  let upserts: KnownChange[] = [];
  let forgets: object[] = [];
  const counts = { stored: 0, forgotten: 0 };
  const flush = async (all: boolean) => {
    if (upserts.length && (all || upserts.length >= page)) {
      const page = {
        kinds: upserts.map((c) => c.kind),
        sourcedIds: upserts.map((c) => c.sourcedId),
        data: upserts.map((c) => JSON.stringify(c.data)),
        students: upserts.map((c) => c.student),
      };
      await upsertMemory(db, institutionId, page, at);
      counts.stored += upserts.length;
      upserts = [];
    }
    if (forgets.length && (all || forgets.length >= page)) {
      await forgetMemory(db, institutionId, forgets);
      counts.forgotten += forgets.length;
      forgets = [];
    }
  };
  for (const change of changes) {
    if (change.data) upserts.push(change);
    else forgets.push({ kind: change.kind, sourced_id: change.sourcedId });
    await flush(false);
  }
  await flush(true);
  return counts;
}

/**
 * Stages one request's changes (at most a page) for a push, made current only when it commits
 * (memory-api.ts): one statement, the forgotten ones staged with no data.
 */
export async function stageChanges(
  db: Queryable,
  institutionId: string,
  pushId: string,
  changes: KnownChange[],
  at: Date,
): Promise<{ stored: number; forgotten: number }> {
  if (!changes.length) return { stored: 0, forgotten: 0 };
  const page = {
    kinds: changes.map((c) => c.kind),
    sourcedIds: changes.map((c) => c.sourcedId),
    data: changes.map((c) => (c.data ? JSON.stringify(c.data) : null)),
    students: changes.map((c) => c.student),
  };
  await stageMemory(db, institutionId, pushId, page, at);
  const forgotten = changes.filter((c) => !c.data).length;
  return { stored: changes.length - forgotten, forgotten };
}
