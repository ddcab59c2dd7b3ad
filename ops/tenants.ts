import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { createTenant } from '../commands/identity/create-tenant';
import { findTenant, listTenants } from '../queries/identity/tenants';
import { SYSTEM_USER_ID } from '../streams/identity/system-accounts';
import { withIdentity } from './users';

export function registerTenantCommands(program: Command): void {
  const tenants = program.command('tenants').description('create and list tenants');

  tenants
    .command('create')
    .description('create a tenant (an operator company); prints its id')
    .requiredOption('--name <name>')
    .option('--id <uuid>', 'a chosen id (default: a new uuid)')
    .action(async (o: { name: string; id?: string }) => {
      const tenantId = o.id ?? randomUUID();
      await withIdentity(async (deps) => {
        const existing = await findTenant(deps.knex, tenantId);
        if (existing) throw new Error(`tenant ${tenantId} exists already (${existing.name})`);
        await createTenant(deps.handle, { tenantId, name: o.name }, { actorId: SYSTEM_USER_ID });
        console.log(`created tenant ${tenantId} (${o.name})`);
      });
    });

  tenants
    .command('list')
    .description('list tenants')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      await withIdentity(async (deps) => {
        const rows = await listTenants(deps.knex);
        if (o.json) console.log(JSON.stringify(rows, null, 2));
        else {
          for (const row of rows)
            console.log(`${row.id}  ${row.name}  (since ${new Date(row.created_at).toISOString()})`);
          console.log(`${rows.length} tenant${rows.length === 1 ? '' : 's'}`);
        }
      });
    });
}
