// Terms of the teaching calendar: keyed by term_code; end never before start (sql/terms.ts).
import { checkTermDates, parseTerm, type TermRow } from '../rows.ts';
import { keep, keysOf, sectionHandler, sortRow } from '../section.ts';
import { matchTerms, writeTerms } from '../sql/terms.ts';

export const terms = sectionHandler({
  parse: parseTerm,
  match: (q, institutionId, parsed) => matchTerms(q, institutionId, keysOf(parsed, 'code')),
  describeKey: (incoming: TermRow) => `the term code ${incoming.code}`,
  decide(context, changes, stored, incoming) {
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
      return;
    }
    const order = checkTermDates(next);
    // Only one date was sent and it crosses the stored other one.
    if (order) context.reject(stored.i, order.problem);
    else sortRow(context, changes, stored, next);
  },
  write: writeTerms,
});
