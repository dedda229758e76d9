// The memory settings of every long-running entry, in one place: `npm start`, `node bin/serve.js`,
// `ssp serve`, `ssp worker` and `ssp push` all run with them (docs/performance.md says what each
// buys).
//
// They cannot be set from inside a running process: V8's flags size the heap when it is made,
// and the C library reads MALLOC_TRIM_THRESHOLD_ when the process starts. NODE_OPTIONS cannot
// carry them all either (node refuses "--heap-growing-percent= is not allowed in NODE_OPTIONS"),
// and a parent process that spawns the server would cost its own 40 MB and stand between the
// server and its signals. So the entry replaces itself, before loading anything else, with the
// same command plus the settings (process.execve: the same process id, so systemd and process
// managers see one process and signal the server directly). A setting the command line or the
// environment already gives is left as given, so an operator can still choose another value
// (`node --max-semi-space-size=4 bin/serve.js`). Where execve does not exist (Windows), the
// entry goes on as started.

/** V8 flags: a 1 MB young generation, and a full collection when the heap has grown by half. */
export const V8_FLAGS = ['--max-semi-space-size=1', '--heap-growing-percent=50'];

/**
 * The C library's (glibc's) malloc: blocks from 32 KB mapped on their own and handed back when
 * freed, and free memory at the top of an arena handed back from 128 KB, rather than kept in
 * the arenas of the threads that freed them (the start's compilation of PostgreSQL's
 * WebAssembly, the database's thread: 8-13 MB of the embedded server idle).
 */
export const ENVIRONMENT = { MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '32768' };

const MARK = 'SSP_NODE_SETTINGS_APPLIED';

const flagName = (flag) => flag.split('=')[0].replaceAll('_', '-');

/**
 * `ssp push` besides: two malloc arenas, not one for each thread that allocates (V8's collector
 * helpers, the file reads). The push's JavaScript is one thread; the blocks those threads free
 * stayed resident in their own arenas (3-4 MB of a OneRoster push's peak, docs/ssp-push.md).
 * (Blocks from 32 KB mapped on their own, which saved the push some 3-6 MB, are everyone's now.)
 */
export const PUSH_ENVIRONMENT = { MALLOC_ARENA_MAX: '2' };

/**
 * `ssp push`'s V8 flags besides: code optimized by Maglev at most, never by TurboFan. A push's
 * hot loops (CSV records, JSON rows) were compiled by TurboFan on helper threads, whose
 * compilation memory and code stayed resident: 8-10 MB of a OneRoster push's peak, in the same
 * time (docs/ssp-push.md, memory model). The server keeps TurboFan.
 */
export const PUSH_V8_FLAGS = ['--max-opt=2'];

/**
 * Restarts this process in place with the settings it lacks; returns when it has them all.
 * `extra`: environment settings of this command besides the common ones; `extraFlags` its V8 flags.
 */
export function applyNodeSettings(extra = {}, extraFlags = []) {
  const given = new Set(process.execArgv.map(flagName));
  const flags = [...V8_FLAGS, ...extraFlags].filter((flag) => !given.has(flagName(flag)));
  const environment = Object.fromEntries(
    Object.entries({ ...ENVIRONMENT, ...extra }).filter(([name]) => process.env[name] === undefined),
  );
  if (flags.length === 0 && Object.keys(environment).length === 0) return;
  // Once only: a process started by this function never starts another.
  if (process.env[MARK] === '1' || typeof process.execve !== 'function') return;
  process.execve(
    process.execPath,
    [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)],
    { ...process.env, ...environment, [MARK]: '1' },
  );
}

/**
 * The command named on ssp's line: the first argument that is neither an option nor its value
 * (which tells a push, whose settings differ, from the rest).
 */
export function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--url' || args[i] === '--token') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return undefined;
}
