import { eventStoreConformance } from './event-store-suite';
import { createTestEventStore } from '../support/event-store';

eventStoreConformance('postgres', createTestEventStore);
