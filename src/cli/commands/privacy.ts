// ssp privacy export|erase: a student's data, exported or erased, over the admin API
// (docs/privacy.md). The same calls as the console's Export and Erase pages, recorded the same
// way (the access log, the admin audit).
import fs from 'node:fs';
import type { Command } from 'commander';
import { type AdminCall, CliError, type Print } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { institutionPath } from './args.ts';

interface ExportFlags {
  email?: string;
  studentIdExt?: string;
  studentId?: string;
  out?: string;
}

export function registerPrivacyCommands(program: Command, admin: () => AdminCall, print: Print) {
  const privacy = program
    .command('privacy')
    .description("A student's data: export everything held about them, or erase them (docs/privacy.md)");
  privacy
    .command('export <institution>')
    .description(
      'Export everything held about one student as one JSON document (GDPR art. 15); recorded in the access log',
    )
    .option('--email <email>', "the student's email (any case)")
    .option('--student-id-ext <id>', "the student's id in the SIS")
    .option('--student-id <id>', "the student's id in this service")
    .option('--out <file>', 'write the document to this file (default: standard output)')
    .action(async (slug: string, o: ExportFlags) => {
      const given = [
        o.email !== undefined && { email: o.email },
        o.studentIdExt !== undefined && { student_id_ext: o.studentIdExt },
        o.studentId !== undefined && { student_id: o.studentId },
      ].filter(Boolean);
      if (given.length !== 1)
        throw new CliError(
          'name the student by one of --email, --student-id-ext and --student-id',
          EXIT.usage,
        );
      const to = o.out ? fs.createWriteStream(o.out, { flags: 'wx', mode: 0o600 }) : process.stdout;
      if (o.out)
        await new Promise<void>((resolve, reject) => {
          (to as fs.WriteStream)
            .once('open', () => resolve())
            .once('error', (error) =>
              reject(new CliError(`cannot write ${o.out}: ${error.message}`, EXIT.failed)),
            );
        });
      try {
        await admin()('POST', institutionPath(slug, 'student-exports'), given[0], { to });
      } catch (error) {
        if (o.out) fs.rmSync(o.out, { force: true });
        throw error;
      } finally {
        if (o.out) await new Promise<void>((resolve) => (to as fs.WriteStream).end(resolve));
      }
      if (o.out) process.stderr.write(`ssp: the export is in ${o.out}\n`);
    });
  privacy
    .command('erase <institution> <student-id>')
    .description(
      'Erase a student (GDPR art. 17): irreversible. Without --yes, only says what would be removed',
    )
    .option('--yes', 'erase for real')
    .action(async (slug: string, studentId: string, o: { yes?: boolean }) => {
      if (!o.yes) {
        const preview = (await admin()('GET', institutionPath(slug, 'students', studentId, 'erasure'))) as {
          email: string;
          removes: Record<string, number>;
        };
        print(preview);
        process.stderr.write(
          `ssp: nothing was erased. Erasing ${preview.email} cannot be undone: run again with --yes to erase.\n`,
        );
        return;
      }
      print(await admin()('POST', institutionPath(slug, 'erasures'), { student_id: studentId }));
    });
}
