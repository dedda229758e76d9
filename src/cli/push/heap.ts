// The push process's memory bound: its peak RSS stays the same whatever the file's size
// (docs/ssp-push.md, Performance). A push allocates a great many short-lived objects (each
// row's record, row object and JSON) and keeps almost none; V8 left to itself still grows:
//
// - the young generation, where new objects go, doubles (up to 48 MB in all) each time enough
//   objects have survived its collections; the push needs no more than its first size, so
//   growth is switched off. V8 reads the flag each time it decides, so setting it in a running
//   process works (measured: 87 MB instead of 104 MB at 100,000 rows).
// - the old generation collects what little the young one hands on (objects of the page in
//   flight, buffers of the file being read) only when it reaches a limit set by the heap's
//   size, after about a million rows (131 MB at 2,500,000 rows, measured). A full collection
//   every few pages (about 10 ms each, with some 13 MB alive) keeps it small.
//
// Only the `ssp push` process itself does this: a push run inside another program (the tests)
// leaves that program's heap alone.
import v8 from 'node:v8';
import vm from 'node:vm';

/** A full collection after this many pages (of up to 5000 rows). */
export const COLLECT_EVERY_PAGES = 10;

export interface HeapBound {
  /** Called after each page answered. */
  pageDone(): void;
  /** A full collection now: a phase ended and what it held is garbage. */
  collect(): void;
}

export function boundHeap(): HeapBound {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  v8.setFlagsFromString('--expose-gc');
  // The collector function exists in contexts made after the flag is set (so not as a global
  // of this one).
  let collect = () => {};
  try {
    collect = vm.runInNewContext('gc') as () => void;
  } catch {
    // Not offered by this Node: V8's own schedule applies.
  }
  let pages = 0;
  return {
    pageDone() {
      if (++pages % COLLECT_EVERY_PAGES === 0) collect();
    },
    collect: () => collect(),
  };
}
