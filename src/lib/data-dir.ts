// The embedded database's directory holds students' emails, help-request text and the key that
// decrypts stored secrets, so only the service's own user may read it: the directory (and every
// directory below it) is 0700 and every file 0600.
//
// PGlite writes through Node's fs, but not everything it writes honours the umask: the cluster
// made at the first start is written 0666, and the relation-cache files (pg_internal.init) are
// rewritten 0644 at each start. So the process runs with umask 077 (what it creates later is
// private) and the directory is walked and tightened when it is opened, once PGlite has started,
// and when it is closed. Between those, the 0700 directory already keeps other users out.
import fs from 'node:fs';
import path from 'node:path';

/** A umask that keeps group and others out of every file and directory the process creates. */
export const PRIVATE_UMASK = 0o077;

/** Sets the restrictive umask for the whole process (the database writes files all its life). */
export function restrictUmask(): void {
  process.umask(PRIVATE_UMASK);
}

/** Creates the directory 0700 when it does not exist. */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Removes group and other permissions from `dir` and everything below it (directories 0700,
 * files keep only their owner bits, e.g. 0666 -> 0600); symbolic links are left alone and not
 * followed. Returns how many entries were looser than that.
 */
export function tightenPrivateDir(dir: string): number {
  let loosened = 0;
  const visit = (entry: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
    } catch (error) {
      // Removed while we walked (a temporary file of the database): nothing to tighten.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if ((mode & PRIVATE_UMASK) !== 0) loosened++;
    // Directories also keep their owner's rwx, or the database could not use them.
    const wanted = stat.isDirectory() ? 0o700 : mode & 0o700;
    if (mode !== wanted) fs.chmodSync(entry, wanted);
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
    }
  };
  visit(dir);
  return loosened;
}
