// The real server as a child process (src/main.ts) on a data directory, for tests of what only
// the whole process does: the first start's output, the files it leaves, a restart.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import path from 'node:path';
import { childNodeFlags } from './child-flags.ts';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  /** The exit code, once it has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then wait for the exit. */
  stop: () => Promise<void>;
}

export async function startServerProcess(
  dataDir: string,
  env: Record<string, string> = {},
  /** The process entry, from the project's root: src/main.ts, or bin/serve.js as `npm start` runs it. */
  entryFile = 'src/main.ts',
): Promise<ServerProcess> {
  const entry = path.resolve(import.meta.dirname, '../..', entryFile);
  const server = spawnGathered('server', [entry], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      ...env,
    },
  });
  const [, url] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  return {
    ...server,
    url,
    stop: async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    },
  };
}

/** A Node.js process (`args` after node) whose stdout and stderr are gathered in one text. */
export function spawnGathered(name: string, args: string[], options: SpawnOptions = {}) {
  const child: ChildProcess = spawn(process.execPath, [...childNodeFlags, ...args], {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** The first match of `pattern` in the output, once it is printed; refused if the process exits first. */
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = pattern.exec(output);
        if (match) {
          clearInterval(timer);
          resolve(match);
        }
      }, 50);
      exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`${name} exited with ${code}: ${output}`));
      });
    });
  return { child, exited, output: () => output, waitFor };
}
