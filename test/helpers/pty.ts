// A command run in a real pseudo-terminal (python3's pty module: no npm dependency), so a test
// sees what a person at a terminal sees: isTTY true, escape codes, and Ctrl-C typed as the
// byte 0x03, which the terminal's line discipline turns into SIGINT for the process group.
import { spawn } from 'node:child_process';

const SCRIPT = `
import os, pty, select, sys, json
argv = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out = sys.stdout.buffer
while True:
    ready, _, _ = select.select([fd, sys.stdin.fileno()], [], [])
    if sys.stdin.fileno() in ready:
        line = sys.stdin.readline()
        if line.strip() == "INT":
            os.write(fd, b"\\x03")
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out.write(data)
        out.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;

export interface PtyRun {
  /** Everything the command wrote to the terminal so far (stdout and stderr together). */
  readonly output: string;
  /** Types Ctrl-C at the terminal. */
  interrupt(): void;
  /** The exit code and the whole output. */
  done: Promise<{ code: number; output: string }>;
}

export function runInPty(argv: string[], env: NodeJS.ProcessEnv, cwd: string): PtyRun {
  const child = spawn('python3', ['-c', SCRIPT, JSON.stringify(argv)], {
    env: { ...env, TERM: 'xterm', COLUMNS: '100', LINES: '30' },
    cwd,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const done = new Promise<{ code: number; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? -1, output })),
  );
  return {
    get output() {
      return output;
    },
    interrupt: () => child.stdin.write('INT\n'),
    done,
  };
}
