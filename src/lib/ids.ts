// The shapes of identifiers the API accepts, defined once: route schemas use them as patterns,
// services use them to answer "not found" for an id that cannot exist without asking the database
// (PostgreSQL would refuse a malformed uuid with an error, not an empty result).

/** A UUID in its canonical 8-4-4-4-12 hex form, any case. */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An institution slug: lower-case letters, digits and hyphens, 1 to 63 characters, not starting with a hyphen. */
export const slugPattern = /^[a-z0-9][a-z0-9-]{0,62}$/;
