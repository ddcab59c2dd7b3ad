import { AuditSigner } from '../../src/platform/eventstore/audit-signature';
import { createEsdbEventStore } from '../../src/platform/eventstore/esdb/esdb-event-store';
import { eventStoreConformance } from './event-store-suite';

// Only against a live server: the suite uses random stream names because a server's
// streams outlive the run and are shared with other runs.
const url = process.env.EVENTSTORE_URL;

if (url) {
  eventStoreConformance('esdb', async () => {
    const signer = new AuditSigner('test-key-'.padEnd(40, 'x'));
    const store = createEsdbEventStore({ url, signer });
    return { store, signer, cleanup: () => store.close() };
  });
} else {
  describe('event store conformance: esdb', () => {
    it.skip('needs EVENTSTORE_URL');
  });
}
