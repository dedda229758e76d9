// What the campuses page shows, built from the domain's own types by pure functions: a page of
// the campuses, the names merges kept, the merge form (a select of every campus when they fit in
// one read, else text fields), and its confirmation naming the campuses as the person knows them.
import type { CampusAlias } from '../../../domain/campuses/schemas.ts';
import type { CampusListing } from '../../../domain/institutions/schemas.ts';
import { text, when } from './forms.ts';
import type { Listing } from './listing.ts';

/** The merge form's values as posted (shown again with the form when refused). */
export interface MergeValues {
  from: string;
  into: string;
}

export function mergeValues(form: unknown): MergeValues {
  return { from: text(form, 'from'), into: text(form, 'into') };
}

/** How the merge form names its fields, and what it says when one is left empty. */
export const mergeFields = {
  from: { label: 'The campus that goes', required: 'Choose the campus that goes.' },
  into: { label: 'The campus that stays', required: 'Choose the campus that stays.' },
};

/** The campuses page. */
export function campusesView(
  listing: Listing<CampusListing>,
  aliases: readonly CampusAlias[],
  merge: { may: boolean; choices?: readonly CampusListing[] },
  page: string,
) {
  return {
    title: 'Campuses',
    listing,
    aliases,
    mayMerge: merge.may,
    choices: merge.choices,
    values: { from: '', into: '' } as MergeValues,
    errors: {} as Record<string, string>,
    self: `${page}?`,
    when,
  };
}

/** The merge's confirmation: the campuses by name when chosen from the list, else as typed. */
export function mergeConfirmation(
  values: MergeValues,
  choices: readonly CampusListing[] | undefined,
  page: string,
) {
  const names = new Map((choices ?? []).map((campus) => [campus.id, campus.name]));
  const from = names.get(values.from) ?? values.from;
  const into = names.get(values.into) ?? values.into;
  return {
    title: `Merge ${from} into ${into}?`,
    message: `Every student and unit of ${from} moves to ${into}, and ${from} is deleted. Its name is kept as an alias of ${into}, so a later push that still uses it matches ${into}. This cannot be undone from the console.`,
    action: `${page}/merge`,
    button: `Merge into ${into}`,
    fields: values,
    back: page,
  };
}
