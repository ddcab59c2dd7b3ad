import { expect } from 'chai';
import { validateSql } from '../../../streams/connectors/sql-validator';

/** The shared validator on PostgreSQL's own parser and on node-sql-parser's Snowflake grammar. */
describe('SQL validator', () => {
  const codes = async (sql: string, engine: 'postgresql' | 'snowflake' = 'postgresql') =>
    (await validateSql(sql, engine)).errors.map((e) => e.code);

  it('accepts one parameterized SELECT and binds named parameters positionally', async () => {
    const result = await validateSql(
      "select api from src.wells where operator_id = :op and spud_date > :since::date and note <> ':not_a_param' and api = any(:op)",
      'postgresql',
    );
    expect(result.valid).to.equal(true);
    expect(result.parameters).to.deep.equal(['op', 'since']);
    expect(result.bound_sql).to.equal(
      "select api from src.wells where operator_id = $1 and spud_date > $2::date and note <> ':not_a_param' and api = any($1)",
    );
  });

  it('ignores colons in comments, quoted identifiers and dollar quotes', async () => {
    const result = await validateSql('select "a:b", $q$:x$q$ /* :y */ from t -- :z\nwhere c = :real', 'postgresql');
    expect(result.parameters).to.deep.equal(['real']);
  });

  it('refuses more than one statement', async () => {
    expect(await codes('select 1; select 2')).to.deep.equal(['multiple_statements']);
  });

  it('refuses anything but SELECT at the top', async () => {
    expect(await codes('update src.wells set name = 1')).to.include('not_select');
    expect(await codes("copy src.wells to '/tmp/x'")).to.include('not_select');
    expect(await codes('call do_it()')).to.include('not_select');
  });

  it('refuses a data-modifying CTE', async () => {
    expect(await codes('with d as (delete from t returning *) select * from d')).to.include('data_modifying');
    expect(await codes('with i as (insert into t values (1) returning *) select 1')).to.include('data_modifying');
  });

  it('refuses SELECT INTO and locking clauses', async () => {
    expect(await codes('select * into t2 from t')).to.deep.equal(['select_into']);
    expect(await codes('select * from t for update')).to.deep.equal(['locking_clause']);
    expect(await codes('select * from t for share')).to.deep.equal(['locking_clause']);
  });

  it('refuses dangerous functions by name with the reason', async () => {
    const result = await validateSql(
      "select set_config('a','b',false), pg_sleep(1), dblink('x','y'), lo_import('/etc/passwd'), pg_read_file('x'), pg_terminate_backend(1), nextval('s'), current_setting('x')",
      'postgresql',
    );
    expect(result.errors.map((e) => e.message)).to.deep.equal([
      'function set_config is refused: it changes session settings',
      'function pg_sleep is refused: it holds the connection (denial of service)',
      'function dblink is refused: it opens connections to other servers',
      'function lo_import is refused: it reads or writes large objects on the server',
      "function pg_read_file is refused: it reads the server's file system",
      'function pg_terminate_backend is refused: it signals server processes',
      'function nextval is refused: it advances or reads sequences (a write)',
      'function current_setting is refused: it reads server settings, which can hold secrets',
    ]);
  });

  it('refuses functions off the allowlist, schema-qualified ones included', async () => {
    expect((await validateSql('select my_udf(1)', 'postgresql')).errors[0].message).to.equal(
      'function my_udf is not on the allowlist',
    );
    expect((await validateSql('select public.lower(x) from t', 'postgresql')).errors[0].message).to.equal(
      'function public.lower is not on the allowlist',
    );
    expect(
      await codes("select pg_catalog.lower(x), count(*), coalesce(a, 1), date_trunc('day', t) from t group by 1"),
    ).to.deep.equal([]);
  });

  it('refuses positional placeholders: parameters are named', async () => {
    expect(await codes('select * from t where a = $1')).to.deep.equal(['positional_parameter']);
    expect(await codes('select * from t where a = ?', 'snowflake')).to.include('positional_parameter');
  });

  it("gives the position of a syntax error in the author's text", async () => {
    const result = await validateSql('select a\nfrom t where :param_with_long_name = 1 and and', 'postgresql');
    expect(result.errors[0].code).to.equal('syntax_error');
    // The second "and" is at offset 52 of the author's text, although the bound text is 19 characters shorter.
    expect(result.errors[0].position).to.deep.equal({ offset: 52, line: 2, column: 44 });
  });

  describe('Snowflake', () => {
    it('accepts a SELECT with named parameters and variant paths', async () => {
      const result = await validateSql(
        'select v:field::string, count(*) from ops.public.t where id = :id group by 1',
        'snowflake',
      );
      expect(result).to.deep.include({ valid: true, parameters: ['id'] });
      expect(result.bound_sql).to.equal('select v:field::string, count(*) from ops.public.t where id = :1 group by 1');
    });

    it('refuses EXECUTE IMMEDIATE, CALL and system functions', async () => {
      expect((await validateSql("execute immediate 'drop table t'", 'snowflake')).errors[0].message).to.equal(
        'EXECUTE IMMEDIATE is not allowed',
      );
      expect((await validateSql('/* x */ call proc()', 'snowflake')).errors[0].message).to.equal('CALL is not allowed');
      expect((await validateSql('select system$whitelist() from t', 'snowflake')).errors[0].code).to.equal(
        'function_refused',
      );
    });

    it('refuses several statements and SELECT INTO', async () => {
      expect(await codes('select 1; select 2', 'snowflake')).to.include('multiple_statements');
      expect(await codes('select * into t2 from t', 'snowflake')).to.include('select_into');
      expect(await codes('update t set a = 1', 'snowflake')).to.include.members(['not_select', 'data_modifying']);
      expect(await codes('insert into t values (1)', 'snowflake')).to.include.members(['not_select', 'data_modifying']);
    });
  });
});
