// Programs (spec 2.3): keyed by program_code, case-insensitively; each new one gets its audience
// tag (sql/programs.ts). An omitted field keeps the stored value.
import { type ProgramRow, parseProgram } from '../rows.ts';
import { keep, keysOf, sectionHandler, sortRow } from '../section.ts';
import { matchPrograms, writePrograms } from '../sql/programs.ts';

export const programs = sectionHandler({
  parse: parseProgram,
  match: (q, institutionId, parsed) => matchPrograms(q, institutionId, keysOf(parsed, 'code')),
  describeKey: (incoming: ProgramRow) => `the program code ${incoming.code}`,
  decide(context, changes, stored, incoming) {
    sortRow(context, changes, stored, {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      coordinator_name: keep(incoming.coordinator_name, stored.coordinator_name),
      coordinator_title: keep(incoming.coordinator_title, stored.coordinator_title),
    });
  },
  write: writePrograms,
});
