-- Institution names compared by how they look (docs/display-names.md). The sign-in page lists
-- institutions by name, so two names that read alike let one institution pose as another. Since
-- migration 0025 names were unique ignoring case and ASCII spaces only: `University\u00a0A`, a
-- zero-width space or soft hyphen inside, a Cyrillic `е` or fullwidth letters all passed. Now a
-- name's skeleton must be unique:
--   1. NFKC normalisation (fullwidth and other compatibility forms become the plain letters;
--      no-break and other wide spaces become spaces);
--   2. default-ignorable code points removed (soft hyphen, zero-width characters, joiners,
--      direction marks and embeddings, variation selectors, tags...) and every kind of space;
--   3. Cyrillic, Greek and a few Latin letters that look like basic Latin ones folded onto them
--      (a small table for the lookalikes of Latin letters, not the whole of Unicode's
--      confusables list: see docs/display-names.md for its scope);
--   4. lower case.
-- The function is the one definition of the rule: the unique index below uses it, so every
-- path that writes a name is held to it.
CREATE FUNCTION institution_name_skeleton(name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN lower(translate(
  regexp_replace(normalize(name, NFKC), U&'[\00AD\034F\061C\115F\1160\17B4\17B5\180B-\180F\200B-\200F\202A-\202E\2060-\206F\3164\FE00-\FE0F\FEFF\FFA0\FFF0-\FFF8\+01BCA0-\+01BCA3\+01D173-\+01D17A\+0E0000-\+0E0FFF\0009-\000D\0020\0085\00A0\1680\2000-\200A\2028\2029\202F\205F\3000]', '', 'g'),
  U&'\0430\0435\043E\0440\0441\0443\0445\0455\0456\0458\0501\04BB\051B\051D\04CF\04AF\043A\0410\0412\0415\041A\041C\041D\041E\0420\0421\0422\0425\0423\0405\0406\0408\04AE\051A\051C\04C0\04BA\03B1\03BF\03C1\03B9\03BA\03BD\03C5\03C7\03B3\0391\0392\0395\0396\0397\0399\039A\039C\039D\039F\03A1\03A4\03A5\03A7\0131\0237\0251\0261\01C0',
  'aeopcyxsijdhqwlykabekmhopctxysijyqwlhaopikvuxyabezhikmnoptyxijagl'
));

-- Names that already look alike are kept, and reported rather than failing the upgrade: the
-- oldest institution keeps its name in the index, each later lookalike records the slug of the
-- one it looks like (shown to the operator in the institution's answers), and stays out of the
-- index until it is renamed (a rename clears it, and the new name must then be unique).
ALTER TABLE institutions ADD COLUMN name_lookalike_of text;
UPDATE institutions i
SET name_lookalike_of = (
  SELECT o.slug FROM institutions o
  WHERE institution_name_skeleton(o.name) = institution_name_skeleton(i.name)
    AND (o.created_at, o.id) < (i.created_at, i.id)
  ORDER BY o.created_at, o.id LIMIT 1
);
CREATE UNIQUE INDEX institutions_name_skeleton_key ON institutions (institution_name_skeleton(name))
  WHERE name_lookalike_of IS NULL;
