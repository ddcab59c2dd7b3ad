import type * as PgQuery from 'libpg-query';
import type { Parser } from 'node-sql-parser';
import { POSTGRES_NODE_KINDS, POSTGRES_OPERATORS, POSTGRES_TYPES } from './sql-expressions';
import { functionRefusal } from './sql-functions';
import { type Dialect, scanParameters } from './sql-parameters';

/**
 * The one SQL validator for editors, exposure drafts and every run: a real
 * parser per engine (libpg-query — PostgreSQL's own grammar compiled to WebAssembly — and
 * node-sql-parser's Snowflake grammar), then rules on the tree: exactly one top-level
 * SELECT, no data-modifying statement anywhere (CTEs included), no SELECT INTO, no locking
 * clause, functions on an allowlist, parameters named and bound.
 *
 * Names are checked as the server resolves them: PostgreSQL folds unquoted names to
 * lower case and keeps quoted ones, so `"LOWER"(x)` is a different function from `lower(x)` —
 * one the source may have defined — and is refused; every node kind, operator and cast type
 * is on an allowlist too (sql-expressions.ts). The warehouse refuses table functions
 * (`TABLE(GENERATOR(…))`, `FLATTEN`) and quoted function names outright.
 */

export interface SqlIssue {
  code: string;
  message: string;
  /** 0-based offset into the author's text, with its 1-based line and column. */
  position: { offset: number; line: number; column: number };
}

export interface SqlValidation {
  valid: boolean;
  engine: Dialect;
  /** Named parameters in order of first use. */
  parameters: string[];
  errors: SqlIssue[];
  /** The text the driver receives: named parameters replaced by positional placeholders. */
  bound_sql: string;
}

const WRITES = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

/**
 * An exposure reads the source's data, never the server's own bookkeeping: the system catalogs
 * name its users and roles (`pg_user`, `pg_shadow`, `pg_roles`), databases, settings and large
 * objects, and the information schema maps every table (PayloadsAllTheThings' enumeration
 * steps). An unqualified `pg_*` name resolves to pg_catalog first, whatever the search path.
 */
const POSTGRES_SYSTEM_SCHEMAS = new Set(['pg_catalog', 'information_schema', 'pg_toast']);
/** Who is asking and where (`user`, `current_user`, `current_schema` …): fingerprinting, not data. Dates and times stay. */
const POSTGRES_IDENTITY_VALUES = new Set([
  'SVFOP_USER',
  'SVFOP_CURRENT_USER',
  'SVFOP_SESSION_USER',
  'SVFOP_CURRENT_ROLE',
  'SVFOP_CURRENT_CATALOG',
  'SVFOP_CURRENT_SCHEMA',
]);
/** The warehouse's own: account usage, the information schema, and the shared SNOWFLAKE database. */
const SNOWFLAKE_SYSTEM_NAMES = new Set([
  'snowflake',
  'information_schema',
  'account_usage',
  'organization_usage',
  'data_sharing_usage',
]);
/** Kinds refused by a rule of their own (a more specific message than "not allowed"). */
const OWN_RULE = new Set([...WRITES, 'IntoClause', 'LockingClause']);

function at(sql: string, offset: number, code: string, message: string): SqlIssue {
  const before = sql.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { code, message, position: { offset, line, column } };
}

// Both parsers load on the first validation, not at boot: libpg-query instantiates its
// WebAssembly module (129 MB reserved) as soon as it is required.
let pgQuery: Promise<typeof PgQuery> | null = null;
const loadPgQuery = () =>
  (pgQuery ??= (async () => {
    const module = require('libpg-query') as typeof PgQuery;
    await module.loadModule();
    return module;
  })());
let snowflakeParser: Parser | null = null;
const snowflake = () =>
  (snowflakeParser ??= new (require('node-sql-parser') as typeof import('node-sql-parser')).Parser());

function walk(node: unknown, visit: (type: string, value: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (/^[A-Z]/.test(key) && value && typeof value === 'object' && !Array.isArray(value))
      visit(key, value as Record<string, unknown>);
    walk(value, visit);
  }
}

function postgresIssues(
  parseSync: typeof PgQuery.parseSync,
  sql: string,
  bound: string,
  map: (o: number) => number,
): SqlIssue[] {
  let tree: { stmts: { stmt: Record<string, Record<string, unknown>>; stmt_location?: number }[] };
  try {
    tree = parseSync(bound) as never;
  } catch (error) {
    const details = (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    return [at(sql, map(details?.cursorPosition ?? 0), 'syntax_error', (error as Error).message)];
  }
  const issues: SqlIssue[] = [];
  if (tree.stmts.length === 0) return [at(sql, 0, 'empty', 'no statement given')];
  if (tree.stmts.length > 1)
    issues.push(
      at(sql, map(tree.stmts[1].stmt_location ?? 0), 'multiple_statements', 'exactly one statement is allowed'),
    );
  const top = tree.stmts[0].stmt;
  const kind = Object.keys(top)[0];
  if (kind !== 'SelectStmt')
    issues.push(
      at(
        sql,
        map(tree.stmts[0].stmt_location ?? 0),
        'not_select',
        `only SELECT is allowed, got ${kind.replace(/Stmt$/, '').toUpperCase()}`,
      ),
    );
  walk(tree.stmts, (type, node) => {
    const location = map(typeof node.location === 'number' ? node.location : 0);
    if (WRITES.has(type))
      issues.push(
        at(
          sql,
          location,
          'data_modifying',
          `${type.replace(/Stmt$/, '').toUpperCase()} is not allowed (data-modifying statement inside the query)`,
        ),
      );
    if (type === 'SelectStmt' && node.intoClause)
      issues.push(at(sql, location, 'select_into', 'SELECT INTO creates a table and is not allowed'));
    if (type === 'SelectStmt' && node.lockingClause)
      issues.push(at(sql, location, 'locking_clause', 'locking clauses (FOR UPDATE / FOR SHARE) are not allowed'));
    if (!POSTGRES_NODE_KINDS.has(type) && !OWN_RULE.has(type))
      issues.push(at(sql, location, 'expression_refused', `${kindName(type)} is not allowed in an exposure`));
    if (type === 'FuncCall') {
      const parts = names(node.funcname);
      const name = parts[parts.length - 1] ?? '';
      const schema = parts.length > 1 ? parts[0] : null;
      const refusal =
        schema && schema !== 'pg_catalog'
          ? `function ${parts.join('.')} is not on the allowlist`
          : name !== name.toLowerCase()
            ? `function "${name}" is not on the allowlist (a quoted name keeps its case and resolves to no built-in)`
            : functionRefusal(name, 'postgresql');
      if (refusal) issues.push(at(sql, location, 'function_refused', refusal));
    }
    if (type === 'A_Expr' || type === 'SortBy') {
      const operator = names(type === 'A_Expr' ? node.name : node.useOp);
      const symbol = operator[operator.length - 1] ?? '';
      if (operator.length > 1)
        issues.push(
          at(
            sql,
            location,
            'operator_refused',
            `OPERATOR(${operator.join('.')}) is not allowed: operators are written as plain built-in symbols`,
          ),
        );
      else if (/^[-+*/<>=~!@#%^&|`?]+$/.test(symbol) && !POSTGRES_OPERATORS.has(symbol))
        issues.push(at(sql, location, 'operator_refused', `operator ${symbol} is not a built-in operator`));
    }
    if (type === 'RangeVar') {
      const schema = typeof node.schemaname === 'string' ? node.schemaname : null;
      const relation = String(node.relname ?? '');
      if ((schema && POSTGRES_SYSTEM_SCHEMAS.has(schema)) || (!schema && relation.startsWith('pg_'))) {
        issues.push(
          at(
            sql,
            location,
            'catalog_refused',
            `${schema ? `${schema}.` : ''}${relation} is a system catalog: an exposure reads the source's tables, not its users, settings or schema`,
          ),
        );
      }
    }
    if (type === 'SQLValueFunction' && POSTGRES_IDENTITY_VALUES.has(String(node.op))) {
      issues.push(
        at(
          sql,
          location,
          'function_refused',
          `${String(node.op).replace('SVFOP_', '')} names the database session (user, role, schema) and is not allowed`,
        ),
      );
    }
    if (type === 'TypeCast') {
      const typeName = names((node.typeName as { names?: unknown } | undefined)?.names);
      const name = typeName[typeName.length - 1] ?? '';
      const builtin =
        (typeName.length === 1 || (typeName.length === 2 && typeName[0] === 'pg_catalog')) && POSTGRES_TYPES.has(name);
      if (!builtin)
        issues.push(
          at(sql, location, 'type_refused', `a cast to ${typeName.join('.')} is not allowed: only built-in types`),
        );
    }
  });
  return issues;
}

/** `[{String: {sval}}]` name lists of libpg-query (functions, operators, types) as strings. */
function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((p) => (p as { String?: { sval?: string } }).String?.sval ?? '') : [];
}

const kindName = (type: string) =>
  type
    .replace(/Stmt$|Expr$/, '')
    .replace(/^Range/, '')
    .toUpperCase();

function snowflakeIssues(sql: string, bound: string, map: (o: number) => number): SqlIssue[] {
  const stripped = sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, '');
  const lead = /^(execute\s+immediate|call|begin|declare|use|alter|set)\b/i.exec(stripped);
  if (lead)
    return [
      at(
        sql,
        sql.length - stripped.length,
        'not_select',
        `${lead[1].replace(/\s+/, ' ').toUpperCase()} is not allowed`,
      ),
    ];
  let ast: unknown;
  try {
    ast = snowflake().astify(bound, { database: 'snowflake' });
  } catch (error) {
    const offset = (error as { location?: { start?: { offset?: number } } }).location?.start?.offset ?? 0;
    return [at(sql, map(offset), 'syntax_error', (error as Error).message.split('\n')[0].slice(0, 300))];
  }
  const statements = (Array.isArray(ast) ? ast : [ast]) as Record<string, unknown>[];
  const issues: SqlIssue[] = [];
  if (statements.length > 1) issues.push(at(sql, 0, 'multiple_statements', 'exactly one statement is allowed'));
  if (statements[0]?.type !== 'select')
    issues.push(
      at(sql, 0, 'not_select', `only SELECT is allowed, got ${String(statements[0]?.type ?? 'nothing').toUpperCase()}`),
    );
  const seen = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as Record<string, unknown>;
    if (
      typeof n.type === 'string' &&
      ['insert', 'update', 'delete', 'merge', 'replace', 'create', 'drop', 'alter', 'call'].includes(n.type)
    ) {
      issues.push(at(sql, 0, 'data_modifying', `${n.type.toUpperCase()} is not allowed`));
    }
    if (n.type === 'select' && (n.into as { position?: unknown } | undefined)?.position)
      issues.push(at(sql, 0, 'select_into', 'SELECT INTO is not allowed'));
    // A FROM item (`{db, schema, table}`, no `type`): the warehouse's own views are not the source's data.
    if (n.type === undefined && typeof n.table === 'string') {
      const qualifiers = [n.catalog, n.db, n.schema].filter((q): q is string => typeof q === 'string');
      const system = qualifiers.find((q) => SNOWFLAKE_SYSTEM_NAMES.has(q.toLowerCase()));
      if (system)
        issues.push(
          at(
            sql,
            Math.max(0, sql.toLowerCase().indexOf(system.toLowerCase())),
            'catalog_refused',
            `${[...new Set(qualifiers)].join('.')}.${n.table} is a system view: an exposure reads the source's tables, not its account or schema`,
          ),
        );
    }
    // `TABLE(GENERATOR(ROWCOUNT => 1e12))` makes rows from nothing: a cost without a bound.
    if (n.keyword === 'table' || n.type === 'generator')
      issues.push(
        at(
          sql,
          0,
          'function_refused',
          `table functions (${String(n.type).toUpperCase()}) are not allowed in an exposure`,
        ),
      );
    if (n.type === 'function' || n.type === 'aggr_func') {
      const raw = n.name as string | { name?: { value: string; type?: string }[] };
      const parts = typeof raw === 'string' ? [raw] : (raw?.name ?? []).map((p) => p.value);
      const quoted = typeof raw !== 'string' && (raw?.name ?? []).some((p) => /quote/.test(p.type ?? ''));
      const name = parts[parts.length - 1] ?? '';
      const refusal =
        parts.length > 1
          ? `function ${parts.join('.')} is not on the allowlist`
          : quoted
            ? `function "${name}" is not on the allowlist (a quoted name resolves to no built-in)`
            : functionRefusal(name, 'snowflake');
      const found = sql.toLowerCase().indexOf(name.toLowerCase());
      if (refusal) issues.push(at(sql, Math.max(0, found), 'function_refused', refusal));
    }
    for (const value of Object.values(n)) visit(value);
  };
  visit(statements);
  return issues;
}

export async function validateSql(sql: string, engine: Dialect): Promise<SqlValidation> {
  const scan = scanParameters(sql, engine);
  const errors: SqlIssue[] = scan.positional.map((p) =>
    at(sql, p.offset, 'positional_parameter', `parameters are named (:name), not positional (${p.token})`),
  );
  if (engine === 'postgresql') {
    const { parseSync } = await loadPgQuery();
    errors.push(...postgresIssues(parseSync, sql, scan.text, scan.map));
  } else errors.push(...snowflakeIssues(sql, scan.text, scan.map));
  errors.sort((a, b) => a.position.offset - b.position.offset);
  return { valid: errors.length === 0, engine, parameters: scan.names, errors, bound_sql: scan.text };
}
