import { z } from 'zod';
import { type FieldDef, FIELD_TYPES, LIMITS } from '../../streams/monitoring/event-type';

/** A field as a request gives it (event type create, field add and update). */

export const FIELD_NAME = z
  .string()
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must start with a letter and hold only letters, digits and _ (at most 64)');
const OptionList = z
  .array(z.string().trim().min(1).max(200))
  .min(1)
  .max(LIMITS.options)
  .refine((o) => new Set(o).size === o.length, 'options must be distinct');

export const FieldInput = z
  .object({
    name: FIELD_NAME,
    type: z.enum(FIELD_TYPES),
    required: z.boolean().default(false),
    options: OptionList.optional(),
    label: z.string().trim().max(200).nullable().optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    entity_type: z.string().trim().min(1).max(64).nullable().optional(),
  })
  .strict()
  .superRefine(optionsMatchType);
export type FieldInput = z.infer<typeof FieldInput>;

export const FieldPatch = z
  .object({
    name: FIELD_NAME.optional(),
    type: z.enum(FIELD_TYPES).optional(),
    required: z.boolean().optional(),
    options: OptionList.optional(),
    label: z.string().trim().max(200).nullable().optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    entity_type: z.string().trim().min(1).max(64).nullable().optional(),
  })
  .strict();
export type FieldPatch = z.infer<typeof FieldPatch>;

export function optionsMatchType(field: { type?: string; options?: string[] | null }, ctx: z.RefinementCtx): void {
  if (field.type === 'select' && !field.options?.length)
    ctx.addIssue({
      code: 'custom',
      path: ['options'],
      message: 'a select field needs options',
      params: { type: 'missing' },
    });
  if (field.type !== undefined && field.type !== 'select' && field.options?.length)
    ctx.addIssue({
      code: 'custom',
      path: ['options'],
      message: 'only select fields have options',
      params: { type: 'not_allowed' },
    });
}

export function fieldDefOf(id: string, input: FieldInput): FieldDef {
  return {
    id,
    name: input.name,
    type: input.type,
    required: input.required,
    options: input.type === 'select' ? (input.options ?? []) : null,
    label: input.label ?? null,
    description: input.description ?? null,
    entityType: input.type === 'entity_ref' ? (input.entity_type ?? null) : null,
  };
}

/** The field after a PATCH: absent keys keep their value; a type change drops options it no longer fits. */
export function patchedField(field: FieldDef, patch: FieldPatch): FieldDef {
  const type = patch.type ?? field.type;
  return {
    id: field.id,
    name: patch.name ?? field.name,
    type,
    required: patch.required ?? field.required,
    options: type === 'select' ? (patch.options ?? field.options ?? []) : null,
    label: patch.label === undefined ? field.label : patch.label,
    description: patch.description === undefined ? field.description : patch.description,
    entityType: type === 'entity_ref' ? (patch.entity_type === undefined ? field.entityType : patch.entity_type) : null,
  };
}
