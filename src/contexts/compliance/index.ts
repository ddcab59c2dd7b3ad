/** What other contexts use of compliance: the Form PR due date (the graph's sample portfolio sets its deadlines with it). */
export { formPrDue } from '../../../commands/compliance/packs/production';
