// The V8 flags that a test's own Node.js children (a server it starts, the benchmarks' smoke
// run) take over from the test process. `npm test` runs with --liftoff-only: PGlite's
// PostgreSQL (9 MB of WebAssembly) is then compiled by V8's baseline compiler only, not again by
// the optimizing one on helper threads as it warms up. For a database that lives a few seconds
// that second compilation is wasted: about a sixth of the suite's CPU (docs/development.md,
// "The test suite's time"). The flag changes how fast code runs, never what it does. NODE_OPTIONS
// cannot carry it, so the children get it on their command line.
const INHERITED = new Set(['--liftoff-only']);

/** The test process's own flags of INHERITED, to put before a child's script. */
export const childNodeFlags: string[] = process.execArgv.filter((flag) => INHERITED.has(flag));
