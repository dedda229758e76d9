import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonLogger } from './json-logger.ts';

/** The lines `write` wrote to stdout, parsed. */
function written(write: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const original = process.stdout.write;
  process.stdout.write = ((chunk: string) => lines.push(chunk) > 0) as typeof process.stdout.write;
  try {
    write();
  } finally {
    process.stdout.write = original;
  }
  return lines.map((line) => JSON.parse(line));
}

test('JSON lines with the fields the server writes; secrets and tokens redacted as it redacts them', () => {
  const [line] = written(() =>
    jsonLogger('info').info(
      { token: 'tk', source: { secret: 's', id: 1 }, at: new Date(0), ids: ['a'] },
      'hello',
    ),
  );
  assert.equal(line.level, 30);
  assert.equal(line.msg, 'hello');
  assert.equal(line.pid, process.pid);
  assert.equal(typeof line.hostname, 'string');
  assert.equal(line.token, '[redacted]');
  assert.deepEqual(line.source, { secret: '[redacted]', id: 1 });
  assert.equal(line.at, '1970-01-01T00:00:00.000Z');
  assert.deepEqual(line.ids, ['a']);
});

test('levels: warn hides info; an error is written with its message and stack', () => {
  const lines = written(() => {
    const log = jsonLogger('warn');
    log.info({}, 'hidden');
    log.error({ err: new Error('broke') }, 'failed');
  });
  assert.equal(lines.length, 1);
  assert.equal((lines[0].err as { message: string }).message, 'broke');
  assert.match((lines[0].err as { stack: string }).stack, /broke/);
});
