import { evidenceKeysProjector, filingsProjector } from '../../../projections/filings/filings-read-model';
import { publishEvidenceKey } from '../../../commands/filings/publish-evidence-key';
import type { ContextModule } from '../../platform/context-module';
import { filingRoutes, jwksRoutes } from './http';
import { filingsApi } from './openapi';
import { filingsAuditCatalog } from './audit';
import { evidenceSigner, type EvidenceSigner } from './signing';

export function createFilingsContext(): ContextModule {
  let signer: EvidenceSigner | null = null;
  const current = () => {
    if (!signer) throw new Error('the evidence signing key is not loaded yet');
    return signer;
  };
  return {
    name: 'filings',
    audit: filingsAuditCatalog,
    projectors: [filingsProjector, evidenceKeysProjector],
    openapi: filingsApi,
    publicRouter: (deps) => filingRoutes(deps, current),
    rootRouter: (deps) => jwksRoutes(deps),
    async start(deps) {
      // Published before the platform reports healthy: no package is signed with a key the JWKS lacks.
      signer = await evidenceSigner(deps.config.evidence.signingKeyPem);
      await publishEvidenceKey(deps, signer.publicJwk);
    },
  };
}

export const filingsContext: ContextModule = createFilingsContext();
