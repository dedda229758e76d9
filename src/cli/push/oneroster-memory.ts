// `ssp push oneroster`'s memory is the service's (docs/oneroster.md, "Deltas"): its orgs,
// courses, classes and users read page by page before the push (so a delta resolves what it
// omits however fresh the machine), what each page of enrollments placed asked as the
// enrollments are read, and what the push changed staged page by page as it runs, made current
// once it ran to its end (the client never holds the memory's enrollments nor its changes to
// them). A service without those endpoints is read whole and written back at the end, as before
// (docs/ssp-push.md, "Memory model"). A memory file
// of earlier versions (`--known`, `.ssp-oneroster-<institution>.json`) is still read: what it
// holds and the service does not is used and handed to the service, and it is never written
// again (docs/versioning.md).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Placements } from '../../domain/oneroster/enrolments.ts';
import {
  type Known,
  type KnownChange,
  type KnownKind,
  KnownUpdate,
  parseKnown,
  placedOf,
  placement,
} from '../../domain/oneroster/known.ts';
import { type FeedPost, FeedRequestError } from './feed-client.ts';
import type { HeapBound } from './heap.ts';
import { PushStopped } from './send.ts';

const PAGE = 5000;

interface Page {
  entries: { kind: KnownKind; sourced_id: string; data: Record<string, unknown> }[];
  next: { kind: string; sourced_id: string } | null;
}

/**
 * The service's memory of the institution, with what an old memory file adds to it: read page
 * by page straight into the mapping's maps (known.ts), so only one page is ever held as JSON.
 */
export async function readMemory(
  post: FeedPost,
  institution: string,
  legacyPath: string,
  /** The ssp process's heap bound (heap.ts); none when a push runs inside another program. */
  heap?: HeapBound,
  /** Asked for page by page (servicePlacements()): the memory's enrollments are not read. */
  withoutEnrollments = false,
): Promise<{ known: KnownUpdate; fromFile: KnownChange[]; fileEntries: number }> {
  const known = new KnownUpdate(undefined);
  const kinds = withoutEnrollments ? { kinds: ['org', 'course', 'class', 'user'] } : {};
  let after: Page['next'] = null;
  do {
    const page = (await post(
      '/api/sis/oneroster/memory/read',
      JSON.stringify({ institution, limit: PAGE, ...kinds, ...(after ? { after } : {}) }),
    )) as unknown as Page;
    for (const e of page.entries) known.load(e.kind, e.sourced_id, e.data);
    after = page.next;
    // The page, as JSON and as parsed (some 3 MB), is garbage now: collected before the next
    // one, so the heap grows by the maps only.
    heap?.collect();
  } while (after);
  const file = readFile(legacyPath);
  const fromFile = file ? merge(known, file) : [];
  return { known, fromFile, fileEntries: fromFile.length };
}

function readFile(path: string): Known | undefined {
  if (!fs.existsSync(path)) return undefined;
  try {
    return parseKnown(JSON.parse(fs.readFileSync(path, 'utf8')));
  } catch (error) {
    throw new PushStopped(
      `${path}: ${(error as Error).message} (remove it: the service keeps the memory now)`,
    );
  }
}

/** What the file knows and the service does not, added to `known` and returned as changes. */
function merge(known: KnownUpdate, file: Known): KnownChange[] {
  const out: KnownChange[] = [];
  const isKnownUser = (id: string) => known.students.has(id) || known.others.has(id);
  for (const [id, v] of Object.entries(file.students)) {
    if (isKnownUser(id)) continue;
    known.load('user', id, { student: v[0], orgs: v.slice(1) });
    out.push({ kind: 'user', sourcedId: id, data: { student: v[0], orgs: v.slice(1) }, student: v[0] });
  }
  for (const id of file.others) {
    if (isKnownUser(id)) continue;
    known.load('user', id, { student: null });
    out.push({ kind: 'user', sourcedId: id, data: { student: null, orgs: [] }, student: null });
  }
  for (const [id, [unit, term]] of Object.entries(file.classes)) {
    if (known.classes.has(id)) continue;
    known.load('class', id, { unit, term });
    out.push({ kind: 'class', sourcedId: id, data: { unit, term }, student: null });
  }
  for (const [id, unit] of Object.entries(file.courses)) {
    if (known.courses.has(id)) continue;
    known.load('course', id, { unit });
    out.push({ kind: 'course', sourcedId: id, data: { unit }, student: null });
  }
  return out;
}

/**
 * Whether the service answers what a page of enrollments placed (and stages a push's changes):
 * an older one answers 404 `not_found` for the address, and the push reads its memory whole.
 */
export async function answersPlacements(post: FeedPost, institution: string): Promise<boolean> {
  try {
    await post('/api/sis/oneroster/memory/placements', JSON.stringify({ institution, sourced_ids: [] }));
    return true;
  } catch (error) {
    if (error instanceof FeedRequestError && error.status === 404 && error.code === 'not_found') return false;
    throw error;
  }
}

/** A push's own id: what it writes is staged under it, and made current by commitMemory(). */
export function newPushId(): string {
  return randomUUID();
}

/**
 * Placements (enrolments.ts) asked of the service a batch at a time, and each batch's changes
 * staged for the push (`pushId`; none in a dry run, which writes nothing).
 */
export function servicePlacements(
  post: FeedPost,
  institution: string,
  pushId: string | undefined,
): Placements {
  return {
    async before(sourcedIds) {
      // An id the memory cannot hold (over 1000 characters, a NUL) placed nothing it knows of.
      const ids = sourcedIds.filter((id) => id.length <= 1000 && !id.includes('\u0000'));
      if (!ids.length) return new Map();
      const answer = (await post(
        '/api/sis/oneroster/memory/placements',
        JSON.stringify({ institution, sourced_ids: ids }),
      )) as unknown as { placements: { sourced_id: string; student: string; unit: string; term: string }[] };
      return new Map(answer.placements.map((p) => [p.sourced_id, placement(p.student, p.unit, p.term)]));
    },
    async now(changes) {
      if (!pushId) return;
      const entries = [...changes].map(([sourcedId, p]) => {
        const e = p === null ? null : placedOf(p);
        return {
          kind: 'enrollment',
          sourced_id: sourcedId,
          data: e && { student: e[0], unit: e[1], term: e[2] },
        };
      });
      await post('/api/sis/oneroster/memory', JSON.stringify({ institution, push: pushId, entries }));
    },
  };
}

/** What the push staged made current, once it ran to its end: all of it, in one transaction. */
export async function commitMemory(post: FeedPost, institution: string, pushId: string): Promise<void> {
  await post('/api/sis/oneroster/memory/commit', JSON.stringify({ institution, push: pushId }));
}

/** Hands the service what the push changed, a page at a time (staged under `pushId` when given). */
export async function writeMemory(
  post: FeedPost,
  institution: string,
  changes: Iterable<KnownChange>,
  /** The ssp process's heap bound (heap.ts), as for readMemory. */
  heap?: HeapBound,
  pushId?: string,
): Promise<number> {
  let entries: object[] = [];
  let sent = 0;
  const flush = async () => {
    if (!entries.length) return;
    await post(
      '/api/sis/oneroster/memory',
      JSON.stringify({ institution, entries, ...(pushId ? { push: pushId } : {}) }),
    );
    sent += entries.length;
    entries = [];
    // The page, as objects and as JSON (some 2 MB for 5000 entries), is garbage now: collected
    // before the next one, as the pages read (a first push writes every entry, 16 pages).
    heap?.collect();
  };
  for (const change of changes) {
    entries.push({ kind: change.kind, sourced_id: change.sourcedId, data: change.data });
    if (entries.length >= PAGE) await flush();
  }
  await flush();
  return sent;
}
