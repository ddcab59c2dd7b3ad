import type { CommandContext } from '../../platform/command-handling/command-handler';
import { Conflict, NotFound } from '../../platform/domain-errors';
import { issuesOf } from '../../platform/http/validation';
import { inSpan } from '../../platform/observability/tracing';
import { ValidationFailed } from '../../platform/domain-errors';
import { connectorIdOf, connectorRefusal, loadConnector, sqlHash } from '../../../commands/connectors/connector-refs';
import { exposureRow } from '../../../queries/connectors/exposures';
import type { ConnectorsDeps } from '../../../commands/connectors/connectors-deps';
import { engineRun } from '../../../commands/connectors/engine-run';
import { parameterSchema } from '../../../commands/connectors/exposure-content';
import { validateSql } from '../../../streams/connectors/sql-validator';

/**
 * The execution envelope for previews and agents: the
 * write side's state decides whether the exposure may run (approved, and the SQL about to
 * run hashes to the pinned hash), the SQL passes the validator again, arguments are
 * validated and bound, and the engine runs it read-only on a fresh connection with the
 * statement timeout and the row cap.
 */

export interface ExposureRun {
  connector_key: string;
  ekey: string;
  columns: { name: string; type: string }[];
  rows: unknown[][];
  row_count: number;
  truncated: boolean;
  elapsed_ms: number;
}

export type RunMode = 'preview' | 'execute';

export async function runExposure(
  deps: ConnectorsDeps,
  key: string,
  ekey: string,
  args: unknown,
  mode: RunMode,
  context: Pick<CommandContext, 'tenantId' | 'actorId' | 'correlationId'>,
): Promise<ExposureRun> {
  const row = await exposureRow(deps.knex, context.tenantId, key, ekey);
  if (!row) throw new NotFound('Exposure not found');
  const connector = await loadConnector(deps, context.tenantId, await connectorIdOf(deps, context.tenantId, key));
  const pinned = connector.exposures[ekey];
  if (!pinned) throw new NotFound('Exposure not found');
  if (mode === 'execute') {
    if (pinned.status !== 'approved' || !pinned.approvedSqlHash)
      throw new Conflict(`exposure is ${pinned.status}, not approved`);
    if (sqlHash(row.sql) !== pinned.approvedSqlHash)
      throw new Conflict("the exposure's SQL no longer matches the approved hash; it must be reviewed again");
  } else if (pinned.status === 'retired') throw new Conflict('exposure is retired');
  if (connector.status !== 'active' || !connector.readOnlyVerifiedAt)
    throw new Conflict(`connector is ${connector.status}; runs need an active connector whose read-only probe passed`);

  const validation = await validateSql(row.sql, connector.connectorType);
  if (!validation.valid)
    throw connectorRefusal('sql_invalid', { reason: validation.errors[0].message, errors: validation.errors });
  const parsed = parameterSchema(row.parameters).safeParse(args ?? {});
  if (!parsed.success)
    throw new ValidationFailed(
      issuesOf(parsed.error, 'body').map((i) => ({ ...i, loc: ['body', 'params', ...i.loc.slice(1)] })),
    );
  const values = validation.parameters.map((name) => (parsed.data as Record<string, unknown>)[name] ?? null);

  const cap = Math.min(
    mode === 'preview' ? deps.limits.previewRows : deps.limits.rowCap,
    row.max_rows ?? Number.MAX_SAFE_INTEGER,
  );
  const run = await engineRun(deps, connector, context);
  const started = Date.now();
  // The engine's own error may quote the credential: the caller and the span see only this.
  const refusal = (error: unknown) => {
    let reason = (error as Error).message;
    for (const value of Object.values(run.credential))
      if (value && value.length >= 4) reason = reason.split(value).join('***');
    return connectorRefusal('query_failed', { reason: reason.slice(0, 500) });
  };
  const attributes = {
    'connector.type': connector.connectorType,
    'connector.key': key,
    'connector.exposure': ekey,
    'connector.mode': mode,
    'tenant.id': context.tenantId,
  };
  const result = await inSpan(`connector query ${connector.connectorType}`, attributes, async (span) => {
    const answer = await deps.engines[connector.connectorType]
      .execute(run, validation.bound_sql, values, cap)
      .catch((error: unknown) => {
        throw refusal(error);
      });
    span?.setAttributes({ 'connector.rows': answer.rows.length, 'connector.truncated': answer.truncated });
    return answer;
  });
  const elapsed = Date.now() - started;
  deps.logger.info(
    {
      tenantId: context.tenantId,
      connectorKey: key,
      ekey,
      mode,
      rows: result.rows.length,
      truncated: result.truncated,
      elapsedMs: elapsed,
    },
    'exposure run',
  );
  return {
    connector_key: key,
    ekey,
    columns: result.columns,
    rows: result.rows,
    row_count: result.rows.length,
    truncated: result.truncated,
    elapsed_ms: elapsed,
  };
}
