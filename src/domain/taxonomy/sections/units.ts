// Units: keyed by unit_code, optionally in a program and at a campus.
// One statement matches the rows, one inserts the new ones, one updates the changed ones.
import { campusNamesSql } from '../../campuses/names.ts';
import { parseUnit, type UnitRow } from '../rows.ts';
import {
  firstOfEachKey,
  keep,
  noChanges,
  parseAll,
  type SectionHandler,
  sortRow,
  writeChanges,
} from '../section.ts';

interface StoredUnit {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  program_id: string | null;
  campus_id: string | null;
  /** The program and campus the row names, when found. */
  found_program_id: string | null;
  found_campus_id: string | null;
}

export const units: SectionHandler = async (context, rows) => {
  const { q, institutionId } = context;
  const parsed = parseAll<UnitRow>(context, rows, parseUnit);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredUnit>(
    `WITH names AS (${campusNamesSql})
     SELECT r.i, lower(r.code) AS key, u.id, u.code, u.name, u.program_id, u.campus_id,
            p.id AS found_program_id, c.id AS found_campus_id
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text, program_code text, campus_name text)
     LEFT JOIN units u ON u.institution_id = $1 AND lower(u.code) = lower(r.code)
     LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.program_code)
     LEFT JOIN names n ON n.key = lower(r.campus_name)
     LEFT JOIN campuses c ON c.id = n.id`,
    [
      institutionId,
      JSON.stringify(
        parsed.map(({ i, value }) => ({
          i,
          code: value.code,
          program_code: value.program_code ?? null,
          campus_name: value.campus_name ?? null,
        })),
      ),
    ],
  );
  const kept = firstOfEachKey(context, matched, (row) => `the unit code ${byIndex.get(row.i)!.code}`);
  const changes = noChanges();
  for (const stored of kept) {
    const incoming = byIndex.get(stored.i)!;
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
    if (missing) continue;
    const link = (given: string | null | undefined, found: string | null, current: string | null) =>
      given === undefined ? current : given === null ? null : found;
    const next = {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      program_id: link(incoming.program_code, stored.found_program_id, stored.program_id),
      campus_id: link(incoming.campus_name, stored.found_campus_id, stored.campus_id),
    };
    sortRow(context, changes, stored, next);
  }
  await writeChanges(context, changes, {
    insert: `INSERT INTO units (institution_id, code, name, program_id, campus_id, created_at, updated_at)
       SELECT $1, r.code, r.name, r.program_id, r.campus_id, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, program_id uuid, campus_id uuid)
       ON CONFLICT DO NOTHING`,
    update: `UPDATE units u SET code = r.code, name = r.name, program_id = r.program_id, campus_id = r.campus_id,
              updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, code text, name text, program_id uuid, campus_id uuid)
       WHERE u.id = r.id AND u.institution_id = $1`,
  });
};
