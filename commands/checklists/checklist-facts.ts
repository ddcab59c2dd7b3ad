/** What the checklist workflows read of a checklist from its own stream (its ChecklistCreated). */
export interface ChecklistFacts {
  checklistId: string;
  templateId: string;
  entityId: string;
  entityType: string;
  period: string | null;
  items: Array<{ index: number; key: string; label: string }>;
}

/** The graph label of a template's entity type (`well` → `Well`). */
export const graphLabelOf = (entityType: string) => entityType.charAt(0).toUpperCase() + entityType.slice(1);
