// The exit codes of every ssp command, so a script (cron, CI) can tell what to do next
// without reading the message: fix the command, fix the credentials, fix the file, or try
// again later. The numbers follow BSD's sysexits.h where it has one (docs/ssp-push.md).

export const EXIT = {
  /** Done; for a push, every row accepted. */
  ok: 0,
  /** Anything not named below: a defect to report, with its stack on stderr. */
  failed: 1,
  /** A push ran to its end but some rows were rejected (the errors CSV names them). */
  rowsRejected: 2,
  /** The command line: an unknown command or option, a missing or malformed argument. */
  usage: 64,
  /** Refused input: a file that cannot be read as asked, or a 4xx the service gave (not 401/403/429). */
  refused: 65,
  /** The service could not be reached or kept failing (network errors, 5xx, 429 after every retry). */
  network: 69,
  /** No credential, or the service refused it (401, 403). */
  auth: 77,
  /** Stopped by Ctrl-C (SIGINT), as shells report it (128 + 2). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for an HTTP status the service answered with (undefined: no answer). */
export function exitForStatus(status: number | undefined): ExitCode {
  if (status === undefined || status >= 500 || status === 429) return EXIT.network;
  if (status === 401 || status === 403) return EXIT.auth;
  return EXIT.refused;
}

/** The table printed by `ssp --help` and `ssp push --help`. */
export const EXIT_CODES_HELP = `Exit codes:
  0    done (a push: every row accepted)
  2    a push ran to its end, but some rows were rejected (see the errors CSV)
  64   usage: unknown command or option, a bad argument
  65   refused input: a file that cannot be read, or the service refused the request (4xx)
  69   network: the service could not be reached, or kept failing after the retries
  77   authentication: no token or secret, or the service refused it (401, 403)
  130  interrupted (Ctrl-C); a push says how to resume
  1    anything else (an unexpected error, printed with its stack)`;
