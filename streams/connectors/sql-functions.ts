/**
 * The functions an exposure may call. Everything not listed is refused; the named refusals
 * say why (a reader of the error learns what the danger is, not only that it failed).
 */

const COMMON = [
  // aggregates and window functions
  'count', 'sum', 'avg', 'min', 'max', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
  'bool_and', 'bool_or', 'every', 'array_agg', 'string_agg', 'listagg', 'median', 'mode', 'percentile_cont', 'percentile_disc',
  'corr', 'covar_pop', 'covar_samp', 'regr_slope', 'regr_intercept',
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value',
  // scalar
  'coalesce', 'nullif', 'greatest', 'least', 'abs', 'ceil', 'ceiling', 'floor', 'round', 'trunc', 'sign', 'mod', 'power', 'sqrt', 'exp', 'ln', 'log', 'div',
  'lower', 'upper', 'initcap', 'length', 'char_length', 'character_length', 'substring', 'substr', 'trim', 'btrim', 'ltrim', 'rtrim',
  'replace', 'split_part', 'left', 'right', 'concat', 'concat_ws', 'position', 'strpos', 'lpad', 'rpad', 'reverse', 'starts_with', 'regexp_replace', 'regexp_like',
  'date_trunc', 'date_part', 'extract', 'age', 'make_date', 'make_timestamp', 'to_char', 'to_date', 'to_timestamp', 'to_number', 'now', 'current_date', 'current_timestamp',
  'cast', 'try_cast', 'json_agg', 'jsonb_agg', 'json_build_object', 'jsonb_build_object', 'to_json', 'to_jsonb', 'jsonb_extract_path_text', 'json_extract_path_text',
  'array_length', 'cardinality', 'unnest', 'md5', 'format',
];

const SNOWFLAKE_ONLY = [
  'iff', 'nvl', 'nvl2', 'zeroifnull', 'nullifzero', 'ifnull', 'decode', 'div0', 'to_varchar', 'to_decimal', 'to_double', 'to_boolean', 'to_timestamp_ntz', 'to_timestamp_tz',
  'try_to_number', 'try_to_date', 'try_to_timestamp', 'dateadd', 'datediff', 'timestampadd', 'timestampdiff', 'year', 'month', 'day', 'dayofweek', 'week', 'quarter', 'hour',
  'last_day', 'contains', 'endswith', 'startswith', 'len', 'charindex', 'split', 'array_size', 'parse_json', 'get', 'get_path', 'object_construct', 'any_value', 'count_if', 'sum_if',
];

export const ALLOWED_FUNCTIONS = {
  postgresql: new Set(COMMON),
  snowflake: new Set([...COMMON, ...SNOWFLAKE_ONLY]),
} as const;

/** Refusals with a reason; checked before the allowlist so the reason is the specific one. */
const NAMED_REFUSALS: [RegExp, string][] = [
  [/^set_config$/, 'changes session settings'],
  [/^current_setting$/, 'reads server settings, which can hold secrets'],
  [/^pg_sleep/, 'holds the connection (denial of service)'],
  [/^dblink/, 'opens connections to other servers'],
  [/^lo_/, 'reads or writes large objects on the server'],
  [/^pg_(read|stat)_(binary_)?file$|^pg_ls_/, 'reads the server\'s file system'],
  [/^pg_(terminate|cancel)_backend$|^pg_reload_conf$|^pg_rotate_logfile$/, 'signals server processes'],
  [/^(nextval|setval|currval|lastval)$/, 'advances or reads sequences (a write)'],
  [/^pg_advisory/, 'takes advisory locks'],
  [/^(query_to_xml|query_to_json|table_to_xml|cursor_to_xml|database_to_xml|schema_to_xml)/, 'runs a nested query given as text'],
  [/^txid_|^pg_current_xact_id|^pg_export_snapshot$/, 'reads or assigns transaction ids'],
  [/^system\$|\$/, 'is a Snowflake system function'],
  [/^(table|generator|flatten|result_scan|identifier|external_table_files|infer_schema|validate|split_to_table|query_history.*|login_history.*)$/, 'is a table function (rows from outside the query\'s tables, or without a bound)'],
  [/^(xml|xpath|xmltable|json_table|json_populate|jsonb_populate|json_to_record|jsonb_to_record)/, 'parses documents into rows or values outside the allowlist'],
];

export function functionRefusal(name: string, dialect: 'postgresql' | 'snowflake'): string | null {
  const lower = name.toLowerCase();
  for (const [pattern, why] of NAMED_REFUSALS) if (pattern.test(lower)) return `function ${lower} is refused: it ${why}`;
  if (!ALLOWED_FUNCTIONS[dialect].has(lower)) return `function ${lower} is not on the allowlist`;
  return null;
}
