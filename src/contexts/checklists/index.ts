/** What other contexts may use of checklists: the Form PR figures, as the checklist computes them. */
export { loadWellFacts, type WellFacts } from '../../../commands/checklists/assessment/well-facts';
export { loadFormPrContext } from '../../../commands/checklists/assessment/form-pr-subjects';
export { formPrFigures, type FormPrContext, type FormPrFigures } from '../../../commands/checklists/assessment/form-pr';
export { formPrFigureRows, type FilingPayload } from '../../../commands/checklists/filing-payload';
export { FILING_TEMPLATES } from '../../../streams/checklists/filing-templates';
