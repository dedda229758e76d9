// A field's name in the words a person uses, for messages people read: a row error says "the
// student ID is missing", not "student_id_ext is required". The field itself (the contract)
// stays in the error's `field`; only the sentence speaks in words.

const words: Record<string, string> = {
  student_id_ext: 'student ID',
  first_name: 'first name',
  last_name: 'last name',
  preferred_name: 'preferred name',
  program_code: 'program code',
  campus_name: 'campus name',
  campus_code: 'campus code',
  first_in_family: 'first-in-family flag',
  start_date: 'start date',
  end_date: 'end date',
  unit_code: 'unit code',
  term_code: 'term code',
  coordinator_name: "coordinator's name",
  coordinator_title: "coordinator's title",
  sourcedId: 'sourcedId',
};

/** "student_id_ext" → "student ID"; any other key with its underscores as spaces. */
export function fieldWords(field: string): string {
  return words[field] ?? field.replaceAll('_', ' ');
}

/** The sentence with its first letter a capital. */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
