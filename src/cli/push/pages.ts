// Rows into pages. A page holds at most `size` rows and remembers where each came from, so a
// row error of the response (a position in the page) becomes a file and line. Rows the client
// already knows are bad (a record with the wrong number of values, a OneRoster row that maps
// to nothing) never reach a page: they go to `onProblem` at once.
//
// Memory: each row is serialised to JSON as it is read, into one of two buffers that are
// reused page after page, and its line into a typed array beside it. No row object outlives
// its own read, so the garbage collector finds nothing of a page's rows to keep: the process
// stays the same size whatever the length of the file. Two buffers because two pages exist at
// once (the one in flight and the next, read meanwhile; see `lookahead`).
import type { RowOrigin } from './model.ts';

export interface Item {
  origin: RowOrigin;
  row?: Record<string, unknown>;
  problem?: { code: string; message: string; column?: string };
  /** A row naming a student a full sync cannot import (src/domain/oneroster/students.ts, namingRows()). */
  namesOnly?: boolean;
}

export interface Page {
  /** 1-based position of the page in its stream. */
  n: number;
  /** Rows in the page. */
  count: number;
  /**
   * The rows as a JSON array, UTF-8: the same text as JSON.stringify(rows). A view of a
   * reused buffer, valid until the page after next is read.
   */
  json: Buffer;
  /** Where row `index` of the page came from. */
  origin(index: number): RowOrigin | undefined;
  /** Whether row `index` only names a student (its rejection is expected, not reported). */
  namesOnly(index: number): boolean;
  /** How many rows of the page only name a student. */
  naming: number;
}

/** Pages whose buffers are in use at once: the page in flight and the next one. */
export const PAGES_HELD = 2;

const INITIAL_BYTES = 1 << 20;

/** One page's storage, kept from page to page: the rows' JSON, and each row's origin. */
class PageSlot {
  bytes = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  length = 0;
  count = 0;
  lines: Uint32Array;
  /** 1 for a row that only names a student. */
  naming: Uint8Array;
  namingCount = 0;
  /** The file of each row: the same few strings repeated, so it costs a pointer a row. */
  files: string[] = [];

  constructor(size: number) {
    this.lines = new Uint32Array(size);
    this.naming = new Uint8Array(size);
  }

  reset(): void {
    this.bytes[0] = 0x5b; // [
    this.length = 1;
    this.count = 0;
    this.namingCount = 0;
    this.files.length = 0;
  }

  add(item: Item): void {
    const text = JSON.stringify(item.row);
    const room = (this.count ? 1 : 0) + text.length * 3 + 1; // UTF-8 is at most 3 bytes a UTF-16 unit
    if (this.length + room > this.bytes.length) this.grow(this.length + room);
    if (this.count) this.bytes[this.length++] = 0x2c; // ,
    this.length += this.bytes.write(text, this.length, 'utf8');
    this.lines[this.count] = item.origin.line;
    this.files[this.count] = item.origin.file;
    this.naming[this.count] = item.namesOnly ? 1 : 0;
    if (item.namesOnly) this.namingCount++;
    this.count++;
  }

  page(n: number): Page {
    this.bytes[this.length] = 0x5d; // ]
    const { lines, files, count, naming } = this;
    return {
      n,
      count,
      json: this.bytes.subarray(0, this.length + 1),
      origin: (index) =>
        index >= 0 && index < count ? { file: files[index], line: lines[index] } : undefined,
      namesOnly: (index) => index >= 0 && index < count && naming[index] === 1,
      naming: this.namingCount,
    };
  }

  private grow(needed: number): void {
    let capacity = this.bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const bigger = Buffer.allocUnsafeSlow(capacity);
    this.bytes.copy(bigger, 0, 0, this.length);
    this.bytes = bigger;
  }
}

/**
 * A stream's rows, one at a time or in batches: a CSV file gives a chunk's records at once,
 * one await for a thousand rows.
 */
export type Items = AsyncIterable<Item | readonly Item[]>;

export async function* paginate(
  items: Items,
  size: number,
  onProblem: (item: Item) => void,
): AsyncGenerator<Page> {
  // Page n is written to slot n % 2: when page n + 2 is read, page n has been answered.
  const slots = Array.from({ length: PAGES_HELD }, () => new PageSlot(size));
  let n = 0;
  let slot = slots[0];
  slot.reset();
  for await (const batch of items) {
    for (const item of Array.isArray(batch) ? batch : [batch as Item]) {
      if (!item.row) {
        onProblem(item);
        continue;
      }
      slot.add(item);
      if (slot.count === size) {
        yield slot.page(++n);
        slot = slots[n % PAGES_HELD];
        slot.reset();
      }
    }
  }
  if (slot.count) yield slot.page(++n);
}

/**
 * Reads one page ahead while the current one is in flight, so parsing overlaps the service's
 * work; `isLast` tells whether a page is the final one (a full sync needs to know it before
 * sending). A read error of the next page surfaces when that page is reached. The page after
 * next is not read until the current one is done with, which is what lets `paginate` reuse
 * its buffers.
 */
export async function* lookahead(
  pages: AsyncGenerator<Page>,
): AsyncGenerator<{ page: Page; isLast: () => Promise<boolean> }> {
  let next = pages.next();
  next.catch(() => {}); // handled when awaited below
  while (true) {
    const current = await next;
    if (current.done) return;
    next = pages.next();
    next.catch(() => {});
    const following = next;
    yield { page: current.value, isLast: () => following.then((r) => r.done === true) };
  }
}
