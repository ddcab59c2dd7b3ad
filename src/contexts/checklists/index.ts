/** What other contexts may use of checklists: the Form PR figures, as the checklist computes them. */
export { loadWellFacts, type WellFacts } from './assessment/well-facts';
export { loadFormPrContext } from './assessment/form-pr-subjects';
export { formPrFigures, type FormPrContext, type FormPrFigures } from './assessment/form-pr';
export { formPrFigureRows, type FilingPayload } from './filing-payload';
export { FILING_TEMPLATES } from './filing-templates';
