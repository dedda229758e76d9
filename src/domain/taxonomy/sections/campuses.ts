// Campuses (spec 2.4): keyed by name, case-insensitively (or a merged name); each new one gets
// its audience tag (sql/campuses.ts).
import { type CampusRow, parseCampus } from '../rows.ts';
import { keysOf, sectionHandler, sortRow } from '../section.ts';
import { matchCampuses, writeCampuses } from '../sql/campuses.ts';

export const campuses = sectionHandler({
  parse: parseCampus,
  match: (q, institutionId, parsed) => matchCampuses(q, institutionId, keysOf(parsed, 'name')),
  describeKey: (incoming: CampusRow) => `the campus ${incoming.name}`,
  decide(context, changes, stored, { name }) {
    // Same campus, new spelling (matching ignores case): the console shows the latest one. A
    // name that matched through a merge's alias never renames the surviving campus.
    sortRow(context, changes, stored, { name }, { name: stored.via_alias ? stored.name : name });
  },
  write: writeCampuses,
});
