// A node:test reporter that writes each test file's time as JSON (npm run test:timing writes
// test-artifacts/test-times.json): per file, the seconds from its first event to its last
// (its wall time in the run, setup included), the sum of its top-level tests' durations, its
// test count and failures, slowest first; then the top-level tests, slowest first.
export default async function* timingReporter(source) {
  const started = Date.now();
  const files = new Map();
  const tests = [];
  for await (const event of source) {
    const data = event.data ?? {};
    // The runner enqueues every file at the start; a file's time starts when it is dequeued.
    if (!data.file || (event.type === 'test:enqueue' && !files.has(data.file))) continue;
    const at = Date.now() - started;
    let file = files.get(data.file);
    if (!file) {
      file = { file: data.file, first: at, last: at, tests: 0, failed: 0, topLevelMs: 0 };
      files.set(data.file, file);
    }
    file.last = at;
    const done = event.type === 'test:pass' || event.type === 'test:fail';
    if (done && data.details?.type !== 'suite') {
      file.tests++;
      if (event.type === 'test:fail') file.failed++;
    }
    if (done && data.nesting === 0) {
      file.topLevelMs += data.details?.duration_ms ?? 0;
      tests.push({ file: data.file, name: data.name, ms: Math.round(data.details?.duration_ms ?? 0) });
    }
  }
  const root = `${process.cwd()}/`;
  const perFile = [...files.values()]
    .map((f) => ({
      file: f.file.replace(root, ''),
      seconds: Math.round(f.last - f.first) / 1000,
      topLevelSeconds: Math.round(f.topLevelMs) / 1000,
      tests: f.tests,
      failed: f.failed,
    }))
    .sort((a, b) => b.seconds - a.seconds);
  tests.sort((a, b) => b.ms - a.ms);
  const report = {
    seconds: (Date.now() - started) / 1000,
    files: perFile,
    tests: tests.map((t) => ({ ...t, file: t.file.replace(root, '') })),
  };
  yield `${JSON.stringify(report, null, 1)}\n`;
}
