// Rows into pages. A page holds at most `size` rows and remembers where each came from, so a
// row error of the response (a position in the page) becomes a file and line. Rows the client
// already knows are bad (a record with the wrong number of values, a OneRoster row that maps
// to nothing) never reach a page: they go to `onProblem` at once.
import type { RowOrigin } from './report.ts';

export interface Item {
  origin: RowOrigin;
  row?: Record<string, unknown>;
  problem?: { code: string; message: string; column?: string };
}

export interface Page {
  /** 1-based position of the page in its stream. */
  n: number;
  rows: Record<string, unknown>[];
  origins: RowOrigin[];
}

export async function* paginate(
  items: AsyncIterable<Item>,
  size: number,
  onProblem: (item: Item) => void,
): AsyncGenerator<Page> {
  let n = 0;
  let rows: Record<string, unknown>[] = [];
  let origins: RowOrigin[] = [];
  for await (const item of items) {
    if (!item.row) {
      onProblem(item);
      continue;
    }
    rows.push(item.row);
    origins.push(item.origin);
    if (rows.length === size) {
      yield { n: ++n, rows, origins };
      rows = [];
      origins = [];
    }
  }
  if (rows.length) yield { n: ++n, rows, origins };
}

/**
 * Reads one page ahead while the current one is in flight, so parsing overlaps the service's
 * work; `isLast` tells whether a page is the final one (a full sync needs to know it before
 * sending). A read error of the next page surfaces when that page is reached.
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
