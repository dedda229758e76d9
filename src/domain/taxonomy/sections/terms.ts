// Terms of the teaching calendar: keyed by term_code; end never before start.
// One statement matches the rows, one inserts the new ones, one updates the changed ones.
import { checkTermDates, parseTerm, type TermRow } from '../rows.ts';
import {
  firstOfEachKey,
  keep,
  noChanges,
  parseAll,
  type SectionHandler,
  sortRow,
  writeChanges,
} from '../section.ts';

interface StoredTerm {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  start_date: string | null;
  end_date: string | null;
}

export const terms: SectionHandler = async (context, rows) => {
  const { q, institutionId } = context;
  const parsed = parseAll<TermRow>(context, rows, parseTerm);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredTerm>(
    `SELECT r.i, lower(r.code) AS key, t.id, t.code, t.name,
            to_char(t.start_date, 'YYYY-MM-DD') AS start_date, to_char(t.end_date, 'YYYY-MM-DD') AS end_date
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text)
     LEFT JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.code)`,
    [institutionId, JSON.stringify(parsed.map((row) => ({ i: row.i, code: row.value.code })))],
  );
  const kept = firstOfEachKey(context, matched, (row) => `the term code ${byIndex.get(row.i)!.code}`);
  const changes = noChanges();
  for (const stored of kept) {
    const incoming = byIndex.get(stored.i)!;
    const next = {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      start_date: keep(incoming.start_date, stored.start_date),
      end_date: keep(incoming.end_date, stored.end_date),
    };
    if (!stored.id && (!next.start_date || !next.end_date)) {
      context.reject(stored.i, {
        code: 'missing_field',
        message: 'A new term needs a start date and an end date',
        field: next.start_date ? 'end_date' : 'start_date',
      });
      continue;
    }
    const order = checkTermDates(next);
    if (order) {
      // Only one date was sent and it crosses the stored other one.
      context.reject(stored.i, order.problem);
      continue;
    }
    sortRow(context, changes, stored, next);
  }
  await writeChanges(context, changes, {
    insert: `INSERT INTO terms (institution_id, code, name, start_date, end_date, created_at, updated_at)
       SELECT $1, r.code, r.name, r.start_date, r.end_date, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, start_date date, end_date date)
       ON CONFLICT DO NOTHING`,
    update: `UPDATE terms t SET code = r.code, name = r.name, start_date = r.start_date, end_date = r.end_date,
              updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, code text, name text, start_date date, end_date date)
       WHERE t.id = r.id AND t.institution_id = $1`,
  });
};
