import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { JSONWebKeySet } from 'jose';
import { getFiling } from '../queries/filings/filings';
import { FILINGS_TABLE } from '../projections/filings/filings-read-model';
import { filingRecord, readZip, verifyEvidence } from '../src/contexts/filings';
import { loadConfig } from '../src/platform/config';
import { openInfrastructure } from '../src/platform/infra/infrastructure';
import { createLogger } from '../src/platform/infra/logger';

async function loadJwks(source: string): Promise<JSONWebKeySet> {
  const text = /^https?:\/\//.test(source) ? await (await fetch(source)).text() : await readFile(source, 'utf8');
  const jwks = JSON.parse(text) as JSONWebKeySet;
  if (!Array.isArray(jwks.keys)) throw new Error(`${source} is not a JWKS (no "keys" array)`);
  return jwks;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * `ops evidence verify|replay` (docs/filings.md): verify needs no database, only the package and
 * a JWKS; replay recomputes a filing's figures and validations from the log.
 */
export function registerEvidenceCommands(program: Command): void {
  const evidence = program
    .command('evidence')
    .description('filing evidence packages: verify one offline, replay a filing from the log');

  evidence
    .command('verify <zip>')
    .description('check the package signature and every file hash (exit 0 valid, 2 not valid)')
    .option('--jwks <file|url>', "the public keys (a JWKS file or URL); default: the manifest's jwks_url")
    .option('--json', 'print the verdict as JSON')
    .action(async (zipPath: string, options: { jwks?: string; json?: boolean }) => {
      try {
        const bytes = await readFile(zipPath);
        let source = options.jwks;
        if (!source) {
          const manifest = (await readZip(bytes)).get('manifest.json');
          source = manifest ? JSON.parse(manifest.toString('utf8')).signature?.jwks_url : undefined;
          if (!source) throw new Error('no --jwks given and the manifest names no jwks_url');
        }
        const verdict = await verifyEvidence(bytes, await loadJwks(source));
        if (options.json) console.log(JSON.stringify(verdict, null, 2));
        else {
          for (const c of verdict.checks) console.log(`${c.passed ? 'ok      ' : 'FAILED  '}${c.check}: ${c.detail}`);
          console.log(
            verdict.valid
              ? `VALID: filing ${verdict.filing_id} signed by key ${verdict.kid}`
              : `NOT VALID: ${verdict.checks.filter((c) => !c.passed).length} check(s) failed`,
          );
        }
        process.exitCode = verdict.valid ? 0 : 2;
      } catch (error) {
        console.error(`evidence verify: ${(error as Error).message}`);
        process.exitCode = 1;
      }
    });

  evidence
    .command('replay <filingId>')
    .description(
      "recompute a Form PR filing's figures and validations from the log as of its position and compare (exit 0 equal, 2 different, 3 not found)",
    )
    .option('--tenant <id>', "the filing's tenant (needed only when the id is found in several)")
    .option('--zip <file>', "compare with this evidence package's manifest (default: the filing as recorded)")
    .action(async (filingId: string, options: { tenant?: string; zip?: string }) => {
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      try {
        const knex = infrastructure.db.knex;
        const tenants: string[] = options.tenant
          ? [options.tenant]
          : (await knex(FILINGS_TABLE).where({ filing_id: filingId }).select('tenant_id')).map(
              (r: { tenant_id: string }) => r.tenant_id,
            );
        const filing = tenants.length === 1 ? await getFiling(knex, tenants[0], filingId) : null;
        if (tenants.length > 1)
          throw new Error(`filing ${filingId} is in ${tenants.length} tenants: name one with --tenant`);
        if (!filing || filing.status !== 'filed') {
          console.error(
            `evidence replay: no filed filing ${filingId}${options.tenant ? ` in tenant ${options.tenant}` : ''}`,
          );
          process.exitCode = 3;
          return;
        }
        const record = await filingRecord({ knex, store: infrastructure.store }, tenants[0], filing);
        if (!record.formPr)
          throw new Error(`filing ${filingId} is a ${filing.form_name} filing: only Form PR figures are recomputed`);
        // Without a package: the figures the reviewer approved and the validations they saw.
        const atReview = (record.payload.validations ?? []).map((v) => ({ key: v.key, passed: v.status === 'pass' }));
        let filed = {
          figures: (record.payload.figures ?? []).map((f) => ({ label: f.label, value: f.value, unit: f.unit })),
          checks: atReview,
          partial: true,
        };
        if (options.zip) {
          const manifest = JSON.parse(
            (await readZip(await readFile(options.zip))).get('manifest.json')!.toString('utf8'),
          );
          filed = {
            figures: manifest.figures.map((f: { label: string; value: number | null; unit: string }) => ({
              label: f.label,
              value: f.value,
              unit: f.unit,
            })),
            checks: manifest.validations?.form_pr?.checks ?? [],
            partial: false,
          };
        }
        console.log(
          `filing ${filingId}: ${filing.form_name} ${filing.period} for ${filing.entity.label} ${filing.entity.id}, figures as of log position ${record.requested.position.commit}/${record.requested.position.prepare}`,
        );
        let differences = 0;
        const recomputed = record.formPr.figures;
        for (const f of filed.figures) {
          const again = recomputed.find((r) => r.label === f.label);
          const equal = !!again && again.value === f.value && again.unit === f.unit;
          if (!equal) differences++;
          console.log(
            `${equal ? 'equal     ' : 'DIFFERENT '}${f.label}: filed ${f.value} ${f.unit}, recomputed ${again ? `${again.value} ${again.unit}` : '(none)'}`,
          );
        }
        for (const r of recomputed.filter((r) => !filed.figures.some((f) => f.label === r.label))) {
          differences++;
          console.log(`DIFFERENT ${r.label}: not filed, recomputed ${r.value} ${r.unit}`);
        }
        for (const check of record.formPr.validations) {
          const before = filed.checks.find((c) => c.key === check.key);
          if (!before && filed.partial) {
            console.log(
              `recomputed validation ${check.key}: ${check.passed ? 'passed' : 'failed'} (not among the checks at review)`,
            );
            continue;
          }
          const equal = !!before && same(before.passed, check.passed);
          if (!equal) differences++;
          console.log(
            `${equal ? 'equal     ' : 'DIFFERENT '}validation ${check.key}: ${check.passed ? 'passed' : 'failed'} (${check.message})`,
          );
        }
        console.log(
          differences === 0
            ? 'REPRODUCED: the figures and validations equal the filing'
            : `NOT REPRODUCED: ${differences} difference(s)`,
        );
        process.exitCode = differences === 0 ? 0 : 2;
      } catch (error) {
        console.error(`evidence replay: ${(error as Error).message}`);
        process.exitCode = 1;
      } finally {
        await infrastructure.close();
      }
    });
}
