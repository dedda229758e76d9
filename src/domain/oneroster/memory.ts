// The service's memory of what completed OneRoster pushes and pulls placed, per institution
// (migration 0071), so that a delta resolves what it omits the same way from any machine: the
// pull reads it before mapping and stores what changed once it applied everything; `ssp push
// oneroster` reads and writes it through the feeds' API (src/app/api/oneroster-memory.ts).
import type { Queryable } from '../../db/db.ts';
import { emptyKnown, type Known, type KnownChange, type KnownKind, type OrgKind } from './known.ts';
import { FORGET_SQL, LOAD_SQL, UPSERT_SQL } from './memory-queries.ts';

/** Entries written per statement. */
const PAGE = 5000;

interface MemoryRow {
  kind: KnownKind;
  sourced_id: string;
  data: Record<string, unknown>;
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
  const { rows } = await db.query<MemoryRow>(LOAD_SQL, [institutionId]);
  const known = emptyKnown();
  for (const row of rows) addEntry(known, row.kind, row.sourced_id, row.data);
  return known;
}

/** Stores what a push or pull changed: a fixed number of statements per page of entries. */
export async function storeMemory(
  db: Queryable,
  institutionId: string,
  changes: Iterable<KnownChange>,
  at: Date,
): Promise<{ stored: number; forgotten: number }> {
  let upserts: KnownChange[] = [];
  let forgets: object[] = [];
  const counts = { stored: 0, forgotten: 0 };
  const flush = async (all: boolean) => {
    if (upserts.length && (all || upserts.length >= PAGE)) {
      await db.query(UPSERT_SQL, [
        institutionId,
        upserts.map((c) => c.kind),
        upserts.map((c) => c.sourcedId),
        upserts.map((c) => JSON.stringify(c.data)),
        upserts.map((c) => c.student),
        at,
      ]);
      counts.stored += upserts.length;
      upserts = [];
    }
    if (forgets.length && (all || forgets.length >= PAGE)) {
      await db.query(FORGET_SQL, [institutionId, JSON.stringify(forgets)]);
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
