/** What other contexts and the operator command line may use of filings. */
export { filingsContext } from './module';
export { verifyEvidence, readZip, type Verdict } from './verify';
export { filingRecord, buildEvidencePackage } from './evidence';
