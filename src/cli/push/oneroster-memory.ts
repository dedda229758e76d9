// `ssp push oneroster`'s memory is the service's (docs/oneroster.md, "Deltas"): read whole,
// page by page, before the push (so a delta resolves what it omits however fresh the machine),
// and what the push changed written back, page by page, once it ran to its end. A memory file
// of earlier versions (`--known`, `.ssp-oneroster-<institution>.json`) is still read: what it
// holds and the service does not is used and handed to the service, and it is never written
// again (docs/versioning.md).
import fs from 'node:fs';
import {
  type Known,
  type KnownChange,
  type KnownKind,
  KnownUpdate,
  parseKnown,
} from '../../domain/oneroster/known.ts';
import type { FeedPost } from './feed-client.ts';
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
): Promise<{ known: KnownUpdate; fromFile: KnownChange[]; fileEntries: number }> {
  const known = new KnownUpdate(undefined);
  let after: Page['next'] = null;
  do {
    const page = (await post(
      '/api/sis/oneroster/memory/read',
      JSON.stringify({ institution, limit: PAGE, ...(after ? { after } : {}) }),
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

/** Hands the service what the push changed, a page at a time. */
export async function writeMemory(
  post: FeedPost,
  institution: string,
  changes: Iterable<KnownChange>,
  /** The ssp process's heap bound (heap.ts), as for readMemory. */
  heap?: HeapBound,
): Promise<number> {
  let entries: object[] = [];
  let sent = 0;
  const flush = async () => {
    if (!entries.length) return;
    await post('/api/sis/oneroster/memory', JSON.stringify({ institution, entries }));
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
