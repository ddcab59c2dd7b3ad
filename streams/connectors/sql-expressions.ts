/**
 * What a PostgreSQL exposure may contain besides allowlisted functions: the
 * validator walks every node of libpg-query's tree and refuses a node kind that is not here,
 * so a construct the checker does not know — XMLTABLE, xmlparse, JSON_TABLE, JSON_QUERY,
 * TABLESAMPLE methods, column definition lists — is refused, not waved through. Each kind
 * below is plain relational algebra or a value; function calls, operators and casts inside
 * them are checked on their own (`sqlNameRefusal`).
 */
export const POSTGRES_NODE_KINDS = new Set([
  'SelectStmt', 'ResTarget', 'ColumnRef', 'String', 'A_Const', 'A_Star', 'A_Expr', 'BoolExpr', 'NullTest', 'BooleanTest',
  'FuncCall', 'NamedArgExpr', 'TypeCast', 'CaseExpr', 'CaseWhen', 'CoalesceExpr', 'MinMaxExpr', 'A_ArrayExpr', 'A_Indirection', 'A_Indices',
  'RowExpr', 'SubLink', 'ParamRef', 'SQLValueFunction', 'CollateClause', 'List', 'Integer', 'Float', 'Boolean', 'BitString',
  'RangeVar', 'JoinExpr', 'RangeSubselect', 'RangeFunction', 'CommonTableExpr', 'SortBy', 'WindowDef', 'GroupingSet', 'GroupingFunc',
]);

/**
 * Operators an exposure may write. A bare symbol resolves through the search path, where the
 * source's own schema may define `===` or shadow nothing but still add new symbols; an
 * `OPERATOR(schema.op)` names one outright. Only PostgreSQL's built-in symbols pass; word
 * operators (BETWEEN, LIKE as `~~`) are the parser's own.
 */
export const POSTGRES_OPERATORS = new Set([
  '+', '-', '*', '/', '%', '^', '=', '<>', '!=', '<', '>', '<=', '>=', '||', '~~', '!~~', '~~*', '!~~*', '~', '!~', '~*', '!~*',
  '@>', '<@', '&&', '->', '->>', '#>', '#>>', '?', '?|', '?&', '|/', '||/', '@', '&', '|', '#', '<<', '>>',
]);

/** Types a literal or column may be cast to: built-ins only (a domain's CHECK may call any function). */
export const POSTGRES_TYPES = new Set([
  'text', 'varchar', 'bpchar', 'char', 'name', 'int2', 'int4', 'int8', 'smallint', 'integer', 'int', 'bigint', 'numeric', 'decimal', 'float4', 'float8', 'real',
  'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'bool', 'boolean', 'json', 'jsonb', 'uuid', 'bytea',
]);
