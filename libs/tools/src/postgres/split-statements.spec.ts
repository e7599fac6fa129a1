import { splitStatements } from './split-statements';

describe('splitStatements', () => {
  const cases: [string, string, string[]][] = [
    ['two statements', 'SELECT 1; SELECT 2;', ['SELECT 1', 'SELECT 2']],
    ['a last statement without a semicolon', 'SELECT 1;\nSELECT 2', ['SELECT 1', 'SELECT 2']],
    ['empty statements and blank text', ' ;;\n ; SELECT 1 ;; ', ['SELECT 1']],
    ['nothing at all', '   \n\t', []],
    ['a comment-only tail after the last statement', 'SELECT 1;\n-- done;\n/* end */\n', ['SELECT 1']],
    ['a leading comment kept with its statement', '-- Drop table if exists\nDROP TABLE t;', ['-- Drop table if exists\nDROP TABLE t']],
    [
      'an apostrophe in a -- comment (test_pft_flow_v2)',
      "-- Reset this facility's barrier rows in case of replay.\nDELETE FROM t WHERE id = 1;\nSELECT 'x';",
      ["-- Reset this facility's barrier rows in case of replay.\nDELETE FROM t WHERE id = 1", "SELECT 'x'"],
    ],
    ['a semicolon in a -- comment', 'SELECT 1 -- one; two\n; SELECT 2', ['SELECT 1 -- one; two', 'SELECT 2']],
    ['a -- comment at the very end', "SELECT 1; -- it's over", ['SELECT 1']],
    ['a block comment with ; and an apostrophe', "SELECT /* don't; split */ 1; SELECT 2", ["SELECT /* don't; split */ 1", 'SELECT 2']],
    ['nested block comments', 'SELECT /* a /* b; */ c; */ 1; SELECT 2', ['SELECT /* a /* b; */ c; */ 1', 'SELECT 2']],
    ['comment markers inside strings', "SELECT '--x;'; SELECT '/* y; */'", ["SELECT '--x;'", "SELECT '/* y; */'"]],
    ["'' escapes and ; inside a string", "SELECT 'a;b''c;'; SELECT 2", ["SELECT 'a;b''c;'", 'SELECT 2']],
    [
      'a JSON literal with an escaped apostrophe',
      `INSERT INTO t VALUES ('{"name": "O''Brien; Jr"}'::jsonb); SELECT 1`,
      [`INSERT INTO t VALUES ('{"name": "O''Brien; Jr"}'::jsonb)`, 'SELECT 1'],
    ],
    ['a backslash is ordinary in a standard string', "SELECT 'C:\\'; SELECT 2", ["SELECT 'C:\\'", 'SELECT 2']],
    ["E'' strings with a backslash-escaped quote", "SELECT E'it\\'s; ok'; SELECT 2", ["SELECT E'it\\'s; ok'", 'SELECT 2']],
    ["e'' (lower case) strings", "SELECT e'a\\';b'; SELECT 2", ["SELECT e'a\\';b'", 'SELECT 2']],
    ["E'' ending in an escaped backslash", "SELECT E'\\\\'; SELECT 2", ["SELECT E'\\\\'", 'SELECT 2']],
    [
      "a word ending in e before a quote is not E''",
      "SELECT 'x' AS name, type'a\\'; SELECT 2",
      ["SELECT 'x' AS name, type'a\\'", 'SELECT 2'],
    ],
    [
      "U&'', X'', B'' and N'' literals",
      "SELECT U&'d\\0061;t', X'1F', B'01', N'n;'; SELECT 2",
      ["SELECT U&'d\\0061;t', X'1F', B'01', N'n;'", 'SELECT 2'],
    ],
    ['double-quoted identifiers with ; and ""', 'SELECT 1 AS "a;""b"; SELECT 2', ['SELECT 1 AS "a;""b"', 'SELECT 2']],
    ['an apostrophe in a quoted identifier', `SELECT 1 AS "it's"; SELECT 2`, [`SELECT 1 AS "it's"`, 'SELECT 2']],
    [
      '% in LIKE patterns',
      "SELECT * FROM t WHERE e LIKE '%@example.com'; SELECT '100%'",
      ["SELECT * FROM t WHERE e LIKE '%@example.com'", "SELECT '100%'"],
    ],
    ['$n parameters are not dollar quotes', 'SELECT $1::int, $2; SELECT 2', ['SELECT $1::int, $2', 'SELECT 2']],
    ['$ inside identifiers is not a dollar quote', 'SELECT a$b$c FROM t; SELECT 2', ['SELECT a$b$c FROM t', 'SELECT 2']],
    [
      'DO $$ ... $$ with semicolons and quotes inside',
      "DO $$\nBEGIN\n  RAISE NOTICE 'it''s; %', 1;\nEND $$;\nSELECT 1;",
      ["DO $$\nBEGIN\n  RAISE NOTICE 'it''s; %', 1;\nEND $$", 'SELECT 1'],
    ],
    [
      '$tag$ bodies containing $$',
      'CREATE FUNCTION f() RETURNS text AS $body$ SELECT $$a;b$$ $body$ LANGUAGE sql; SELECT f()',
      ['CREATE FUNCTION f() RETURNS text AS $body$ SELECT $$a;b$$ $body$ LANGUAGE sql', 'SELECT f()'],
    ],
    [
      'a quote inside a dollar body does not open a string',
      "DO $x$ BEGIN PERFORM ';'; END $x$; SELECT 'y'",
      ["DO $x$ BEGIN PERFORM ';'; END $x$", "SELECT 'y'"],
    ],
    [
      'CREATE FUNCTION ... BEGIN ATOMIC with CASE ... END',
      'CREATE OR REPLACE FUNCTION f(a int) RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT CASE WHEN a > 0 THEN 1 ELSE 0 END;\n  SELECT 2;\nEND;\nSELECT f(1);',
      [
        'CREATE OR REPLACE FUNCTION f(a int) RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT CASE WHEN a > 0 THEN 1 ELSE 0 END;\n  SELECT 2;\nEND',
        'SELECT f(1)',
      ],
    ],
    [
      'CREATE PROCEDURE ... BEGIN ATOMIC',
      'CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (1); END; CALL p()',
      ['CREATE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (1); END', 'CALL p()'],
    ],
    ['transaction BEGIN/END outside routines still split', 'BEGIN; SELECT 1; END;', ['BEGIN', 'SELECT 1', 'END']],
    [
      'semicolons inside parentheses (CREATE RULE)',
      'CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2)); SELECT 1',
      ['CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2))', 'SELECT 1'],
    ],
    ['CRLF line endings', 'SELECT 1;\r\n-- c;\r\nSELECT 2;\r\n', ['SELECT 1', '-- c;\r\nSELECT 2']],
    ['an unterminated string runs to the end', "SELECT 'abc; SELECT 2", ["SELECT 'abc; SELECT 2"]],
    ['an unterminated dollar body runs to the end', 'DO $$ BEGIN; SELECT 2', ['DO $$ BEGIN; SELECT 2']],
    ['operators and casts', "SELECT p->>'a', p->'b', x::text FROM t; SELECT 2", ["SELECT p->>'a', p->'b', x::text FROM t", 'SELECT 2']],
    ['numbers with exponents and E-like suffixes', "SELECT 1e5, 2E3; SELECT 'e'", ['SELECT 1e5, 2E3', "SELECT 'e'"]],
  ];

  it.each(cases)('%s', (_name, sql, expected) => {
    expect(splitStatements(sql)).toEqual(expected);
  });

  it('splits the postgres_jsonb_test query block into its four SELECTs', () => {
    const sql = `-- Query 1: Select all data
SELECT id, profile->>'name' AS name FROM public.t ORDER BY user_id;

-- Query 2: Filter by JSONB property
SELECT user_id FROM public.t
WHERE profile->>'email' LIKE '%@example.com'
ORDER BY user_id;

-- Query 3: Query nested JSONB properties
SELECT user_id FROM public.t WHERE profile->'preferences'->>'theme' = 'dark';

-- Query 4: Use JSONB contains operator
SELECT user_id FROM public.t
WHERE profile @> '{"preferences": {"notifications": true}}'::jsonb
ORDER BY user_id;
`;
    const statements = splitStatements(sql);
    expect(statements).toHaveLength(4);
    expect(statements[3]).toContain(`'{"preferences": {"notifications": true}}'::jsonb`);
  });

  it('keeps the DO $$ assertion block of test_pft_flow_v2 whole', () => {
    const sql = `DO $$
DECLARE
  expected INTEGER := 5;
  failures TEXT[];
BEGIN
  SELECT ARRAY_REMOVE(ARRAY[
    CASE WHEN 5 <> expected THEN 'assessments_done' END,
    CASE WHEN 4 <> 4 THEN 'mds_details_done' END
  ], NULL) INTO failures;

  IF ARRAY_LENGTH(failures, 1) IS NOT NULL THEN
    RAISE EXCEPTION 'Facility validation is incomplete: %', ARRAY_TO_STRING(failures, ', ');
  END IF;
END $$;

SELECT
  'ready' AS status,
  7 AS facility_mapping_id;`;
    const statements = splitStatements(sql);
    expect(statements).toHaveLength(2);
    expect(statements[0]).toMatch(/^DO \$\$[\s\S]*END \$\$$/);
    expect(statements[1]).toMatch(/^SELECT\s+'ready' AS status/);
  });

  it('splits the statements a python step built with escaped JSON (postgres_jsonb_test)', () => {
    const sql = [
      `INSERT INTO public.t (user_id, profile) VALUES (1, '{"name": "Alice''s; \\"x\\""}'::jsonb);`,
      `INSERT INTO public.t (user_id, profile) VALUES (2, '{"name": "Bob"}'::jsonb);`,
    ].join('\n');
    expect(splitStatements(sql)).toHaveLength(2);
  });
});
