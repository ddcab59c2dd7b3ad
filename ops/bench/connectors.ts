import { egressPolicy, checkEgress } from '../../commands/connectors/egress';
import { postgresqlEngine } from '../../commands/connectors/engines/postgresql';
import { validateSql } from '../../streams/connectors/sql-validator';
import { type BenchRow, perSecond } from './support';

const PG_SQL = `select w.api, w.name, count(*) as inspections, max(i.inspected_at) as last
  from src.wells w join src.inspections i on i.api = w.api
 where w.operator_id = :operator and i.inspected_at >= :since::date
 group by w.api, w.name order by last desc`;
const SF_SQL = `select api, name, count(*) as n from ops.public.wells where operator_id = :operator and spud_date >= :since group by api, name order by n desc`;

async function validationsPerSecond(sql: string, engine: 'postgresql' | 'snowflake', total: number): Promise<number> {
  await validateSql(sql, engine);
  const started = process.hrtime.bigint();
  for (let i = 0; i < total; i++) await validateSql(sql, engine);
  return perSecond(total, started);
}

/**
 * The validator runs on every draft, edit, editor keystroke and exposure run; one run of an
 * exposure opens a fresh connection (no session state carried), so its overhead is measured
 * on DATABASE_URL's server when set.
 */
export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [
    {
      name: 'validate SQL, PostgreSQL (libpg-query)',
      value: await validationsPerSecond(PG_SQL, 'postgresql', 5_000),
      unit: 'ops/s',
      target: '>= 1,000',
    },
    {
      name: 'validate SQL, Snowflake (node-sql-parser)',
      value: await validationsPerSecond(SF_SQL, 'snowflake', 2_000),
      unit: 'ops/s',
      target: '>= 200',
    },
  ];
  const policy = egressPolicy([]);
  const started = process.hrtime.bigint();
  for (let i = 0; i < 50_000; i++) await checkEgress('93.184.216.34', policy);
  rows.push({ name: 'egress check, literal address', value: perSecond(50_000, started), unit: 'ops/s' });

  if (process.env.DATABASE_URL) {
    const url = new URL(process.env.DATABASE_URL);
    const runConfig = {
      config: {
        host: url.hostname,
        port: Number(url.port || 5432),
        database: url.pathname.slice(1) || 'postgres',
        sslmode: 'disable',
      },
      credential: {
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password) || 'unused',
      },
      host: url.hostname,
      address: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname,
      limits: { connectTimeoutMs: 5000, statementTimeoutMs: 5000 },
    };
    const runs = 200;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < runs; i++)
      await postgresqlEngine.execute(runConfig, 'select g from generate_series(1, 100) g', [], 50);
    rows.push({
      name: 'exposure run, PostgreSQL, fresh connection, 50 rows',
      value: Number(process.hrtime.bigint() - t0) / 1e6 / runs,
      unit: 'ms/run',
      target: '<= 50',
    });
  }
  return rows;
}
