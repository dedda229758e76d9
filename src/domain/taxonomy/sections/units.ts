// Units: keyed by unit_code, optionally in a program and at a campus (sql/units.ts). A program
// or campus named but not found rejects the row; null unlinks it, an omitted one keeps it.
import { parseUnit, type UnitRow } from '../rows.ts';
import { keep, type SectionContext, sectionHandler, sortRow } from '../section.ts';
import { matchUnits, type StoredUnit, writeUnits } from '../sql/units.ts';

/** Rejects a row naming a program or campus that is not stored; true when it did. */
function rejectMissing(context: SectionContext, stored: StoredUnit, incoming: UnitRow): boolean {
  let missing = false;
  if (incoming.program_code && !stored.found_program_id) {
    missing = true;
    context.reject(stored.i, {
      code: 'program_not_found',
      message: `No program has the code ${incoming.program_code}`,
      field: 'program_code',
    });
  }
  if (incoming.campus_name && !stored.found_campus_id) {
    missing = true;
    context.reject(stored.i, {
      code: 'campus_not_found',
      message: `No campus is named ${incoming.campus_name}`,
      field: 'campus_name',
    });
  }
  return missing;
}

const link = (given: string | null | undefined, found: string | null, current: string | null) =>
  given === undefined ? current : given === null ? null : found;

export const units = sectionHandler({
  parse: parseUnit,
  match: (q, institutionId, parsed) =>
    matchUnits(
      q,
      institutionId,
      parsed.map(({ i, value }) => ({
        i,
        code: value.code,
        program_code: value.program_code ?? null,
        campus_name: value.campus_name ?? null,
      })),
    ),
  describeKey: (incoming: UnitRow) => `the unit code ${incoming.code}`,
  decide(context, changes, stored, incoming) {
    if (rejectMissing(context, stored, incoming)) return;
    sortRow(context, changes, stored, {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      program_id: link(incoming.program_code, stored.found_program_id, stored.program_id),
      campus_id: link(incoming.campus_name, stored.found_campus_id, stored.campus_id),
    });
  },
  write: writeUnits,
});
