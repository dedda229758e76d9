// Pages: the rows' JSON as the service must read it, origins kept, and the bound that keeps a
// push's memory flat: while a page is in flight, only the next one is read.
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { FeedBody } from './feed-client.ts';
import { type Item, lookahead, PAGES_HELD, type Page, paginate } from './pages.ts';
import { createProgress } from './progress.ts';
import { PushReport } from './report.ts';
import { pushSection } from './send.ts';
import { PushState } from './state.ts';

const row = (i: number) => ({ email: `s${i}@example.edu`, student_id_ext: `S${i}`, first_name: `Zoë ${i}` });
const item = (i: number): Item => ({ origin: { file: 'roster.csv', line: i + 2 }, row: row(i) });

/** Items 0..n-1, counting how many have been taken. */
function source(n: number, batch = 1) {
  const taken = { count: 0 };
  const items = (async function* () {
    for (let i = 0; i < n; i += batch) {
      const items = Array.from({ length: Math.min(batch, n - i) }, (_, k) => item(i + k));
      taken.count += items.length;
      yield batch === 1 ? items[0] : items;
    }
  })();
  return { items, taken };
}

const text = (page: Page) => page.json.toString('utf8');

describe('pages', () => {
  test('a page is the JSON of its rows, and names the line of each', async () => {
    const problems: Item[] = [];
    const { items } = source(7, 3);
    const pages: { n: number; json: string; lines: (number | undefined)[] }[] = [];
    for await (const page of paginate(items, 3, (p) => problems.push(p))) {
      pages.push({
        n: page.n,
        json: text(page),
        lines: [0, 1, 2, 3].map((i) => page.origin(i)?.line),
      });
    }
    assert.deepEqual(
      pages.map((p) => p.n),
      [1, 2, 3],
    );
    assert.equal(pages[0].json, JSON.stringify([row(0), row(1), row(2)]));
    assert.equal(pages[2].json, JSON.stringify([row(6)]));
    assert.deepEqual(pages[1].lines, [5, 6, 7, undefined]);
    assert.equal(problems.length, 0);
  });

  test('rows with a problem go aside, never into a page', async () => {
    const bad: Item = {
      origin: { file: 'roster.csv', line: 9 },
      problem: { code: 'bad_record', message: 'x' },
    };
    const problems: Item[] = [];
    const items = (async function* () {
      yield [item(0), bad, item(1)];
    })();
    const pages: string[] = [];
    for await (const page of paginate(items, 5, (p) => problems.push(p))) pages.push(text(page));
    assert.deepEqual(pages, [JSON.stringify([row(0), row(1)])]);
    assert.deepEqual(problems, [bad]);
  });

  test('a page stays intact while the next is read (two buffers, used in turn)', async () => {
    const { items } = source(9);
    const seen: string[] = [];
    for await (const { page, isLast } of lookahead(paginate(items, 3, () => {}))) {
      const before = text(page);
      await isLast(); // the next page has been read meanwhile
      assert.equal(text(page), before);
      seen.push(before);
    }
    assert.equal(seen.length, 3);
    assert.equal(seen[1], JSON.stringify([row(3), row(4), row(5)]));
  });

  test('while a page is in flight, only the next page is read: memory does not grow with the file', async () => {
    const size = 4;
    const { items, taken } = source(10 * size);
    const sent: string[] = [];
    const takenWhileInFlight: number[] = [];
    let release: () => void = () => {};
    const post = async (_path: string, body: FeedBody) => {
      const parts = typeof body === 'string' ? [Buffer.from(body)] : body;
      sent.push(Buffer.concat(parts).toString('utf8'));
      // The service is slow: the reader has all the time it wants to run ahead.
      await new Promise<void>((resolve) => {
        release = resolve;
        setTimeout(() => {
          takenWhileInFlight.push(taken.count);
          resolve();
        }, 20);
      });
      return { received: size, created: size, updated: 0, errors: [] };
    };
    const report = new PushReport({
      dryRun: false,
      errorsPath: path.join(os.tmpdir(), 'ssp-pages-test-errors.csv'),
      appendErrors: false,
    });
    const totals = await pushSection(
      {
        post,
        state: PushState.open(undefined, 'test'),
        report,
        progress: createProgress({ write: () => true }),
        dryRun: false,
        pageSize: size,
      },
      { section: 'roster', stream: 'roster:c', label: 'roster', file: 'roster.csv', items, cohortId: 'c' },
    );
    release();
    assert.equal(totals.pages, 10);
    assert.equal(totals.created, 10 * size);
    // Page n in flight: pages n and n + 1 read, no more.
    takenWhileInFlight.forEach((count, i) => {
      assert.ok(count <= Math.min(i + PAGES_HELD, 10) * size, `page ${i + 1} in flight: ${count} rows read`);
    });
    // Every body carried its own rows, though the buffers were reused.
    sent.forEach((body, i) => {
      const students = JSON.parse(body).students as { student_id_ext: string }[];
      assert.deepEqual(
        students.map((s) => s.student_id_ext),
        Array.from({ length: size }, (_, k) => `S${i * size + k}`),
      );
    });
  });
});
