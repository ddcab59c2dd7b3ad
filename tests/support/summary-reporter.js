'use strict';
// Mocha's spec reporter plus the closing line CI reads: `tests: N passed, M failed[, K skipped]`.
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  epilogue() {
    super.epilogue();
    const { passes = 0, failures = 0, pending = 0 } = this.stats;
    const tail = pending > 0 ? `, ${pending} skipped` : '';
    process.stdout.write(`tests: ${passes} passed, ${failures} failed${tail}\n`);
  }
}

module.exports = SummaryReporter;
