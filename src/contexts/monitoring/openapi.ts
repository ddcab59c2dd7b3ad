import { z, type ApiDescription } from '../../platform/openapi/describe';
import { ConditionalRuleBody, ConditionalRulePatch } from '../../../commands/monitoring/change-conditional-rules';
import {
  DuplicationRuleBody,
  DuplicationRulePatch,
  ResetBody,
} from '../../../commands/monitoring/change-duplication-rules';
import { TransitionBody, UpdateEventTypeBody } from '../../../commands/monitoring/change-event-type';
import { ReorderBody } from '../../../commands/monitoring/change-fields';
import { GuardRuleBody, GuardRulePatch } from '../../../commands/monitoring/change-guard-rules';
import { CreateEventTypeBody } from '../../../commands/monitoring/create-event-type';
import { FieldInput, FieldPatch } from '../../../commands/monitoring/field-input';
import { LogEventBody } from '../../../commands/monitoring/log-event';
import { UpdateEventBody } from '../../../commands/monitoring/update-event';
import {
  CorrelateBody,
  EventListQuery,
  EventQuery,
  FieldParams,
  RuleIdParams,
  RuleParams,
  TenantQuery,
  TypeListQuery,
  TypeParams,
} from './schemas';

/**
 * Monitoring: event types, logged events, duplication rules in the API contract.
 * Request schemas are the router's own; responses are open objects (a first pass,
 * to be tightened here by the context's owners).
 */
const Obj = z.object({}).passthrough();
const EventType = Obj.openapi('EventType');
const Field = Obj.openapi('EventTypeField');
const Rule = Obj.openapi('EventTypeRule');
const Event = Obj.openapi('MonitoringEvent');
const DuplicationRule = Obj.openapi('DuplicationRule');

export const monitoringApi: ApiDescription = {
  tag: 'monitoring',
  public: () => [
    {
      method: 'post',
      path: '/event-types',
      summary: 'Create an event type (events.configure)',
      body: CreateEventTypeBody,
      responses: { 201: EventType },
    },
    {
      method: 'get',
      path: '/event-types',
      summary: 'Event types',
      query: TypeListQuery,
      responses: { 200: z.array(EventType) },
    },
    {
      method: 'get',
      path: '/event-types/:id',
      summary: 'One event type',
      params: TypeParams,
      responses: { 200: EventType },
    },
    {
      method: 'patch',
      path: '/event-types/:id',
      summary: 'Change an event type',
      params: TypeParams,
      body: UpdateEventTypeBody,
      responses: { 200: EventType },
    },
    {
      method: 'delete',
      path: '/event-types/:id',
      summary: 'Delete an event type',
      params: TypeParams,
      responses: { 204: null },
    },
    {
      method: 'post',
      path: '/event-types/:id/transition',
      summary: 'Move an event type to another status',
      params: TypeParams,
      body: TransitionBody,
      responses: { 200: EventType },
    },
    {
      method: 'post',
      path: '/event-types/:id/fields',
      summary: 'Add a field',
      params: TypeParams,
      body: FieldInput,
      responses: { 201: Field },
    },
    {
      method: 'get',
      path: '/event-types/:id/fields',
      summary: "An event type's fields",
      params: TypeParams,
      responses: { 200: z.array(Field) },
    },
    {
      method: 'put',
      path: '/event-types/:id/fields/reorder',
      summary: 'Reorder the fields',
      params: TypeParams,
      body: ReorderBody,
      responses: { 200: z.array(Field) },
    },
    {
      method: 'patch',
      path: '/event-types/:id/fields/:fid',
      summary: 'Change a field',
      params: FieldParams,
      body: FieldPatch,
      responses: { 200: Field },
    },
    {
      method: 'delete',
      path: '/event-types/:id/fields/:fid',
      summary: 'Remove a field',
      params: FieldParams,
      responses: { 204: null },
    },
    {
      method: 'post',
      path: '/event-types/:id/conditional-rules',
      summary: 'Add a conditional rule',
      params: TypeParams,
      body: ConditionalRuleBody,
      responses: { 201: Rule },
    },
    {
      method: 'get',
      path: '/event-types/:id/conditional-rules',
      summary: 'Conditional rules',
      params: TypeParams,
      responses: { 200: z.array(Rule) },
    },
    {
      method: 'patch',
      path: '/event-types/:id/conditional-rules/:rid',
      summary: 'Change a conditional rule',
      params: RuleParams,
      body: ConditionalRulePatch,
      responses: { 200: Rule },
    },
    {
      method: 'delete',
      path: '/event-types/:id/conditional-rules/:rid',
      summary: 'Remove a conditional rule',
      params: RuleParams,
      responses: { 204: null },
    },
    {
      method: 'post',
      path: '/event-types/:id/guard-rules',
      summary: 'Add a guard rule (draft)',
      params: TypeParams,
      body: GuardRuleBody,
      responses: { 201: Rule },
    },
    {
      method: 'get',
      path: '/event-types/:id/guard-rules',
      summary: 'Guard rules',
      params: TypeParams,
      responses: { 200: z.array(Rule) },
    },
    {
      method: 'patch',
      path: '/event-types/:id/guard-rules/:rid',
      summary: 'Change a guard rule',
      params: RuleParams,
      body: GuardRulePatch,
      responses: { 200: Rule },
    },
    {
      method: 'post',
      path: '/event-types/:id/guard-rules/:rid/publish',
      summary: 'Publish a guard rule version',
      params: RuleParams,
      responses: { 200: Rule },
    },
    {
      method: 'get',
      path: '/event-types/:id/guard-rules/:rid/versions',
      summary: "A guard rule's published versions",
      params: RuleParams,
      responses: { 200: z.union([z.array(Obj), Obj]) },
    },
    {
      method: 'post',
      path: '/events',
      summary: 'Log an event (201; 200 when replayed or suppressed as a duplicate)',
      body: LogEventBody,
      responses: { 201: Event, 200: Event },
    },
    {
      method: 'get',
      path: '/events',
      summary: 'Logged events, filtered and paged',
      query: EventListQuery,
      responses: { 200: z.union([z.array(Event), Obj]) },
    },
    {
      method: 'get',
      path: '/events/:id',
      summary: 'One event (`history=true` adds its history)',
      params: TypeParams,
      query: EventQuery,
      responses: { 200: Event },
    },
    {
      method: 'patch',
      path: '/events/:id',
      summary: 'Change an event',
      params: TypeParams,
      body: UpdateEventBody,
      responses: { 200: Event },
    },
    {
      method: 'post',
      path: '/events/:id/correlate',
      summary: 'Events correlated with one event',
      params: TypeParams,
      body: CorrelateBody,
      responses: { 200: Obj },
    },
  ],
  internal: () => [
    {
      method: 'get',
      path: '/duplication-rules',
      summary: 'Duplication rules of the tenant (`X-Tenant-Id` or `tenant_id`)',
      query: TenantQuery,
      responses: { 200: z.union([z.array(DuplicationRule), Obj]) },
    },
    {
      method: 'post',
      path: '/duplication-rules',
      summary: 'Add a duplication rule',
      query: TenantQuery,
      body: DuplicationRuleBody,
      responses: { 201: DuplicationRule },
    },
    {
      method: 'post',
      path: '/duplication-rules/reset',
      summary: 'Reset one or every rule to its default',
      query: TenantQuery,
      body: ResetBody,
      responses: { 200: z.array(DuplicationRule) },
    },
    {
      method: 'patch',
      path: '/duplication-rules/:id',
      summary: 'Change a duplication rule',
      params: RuleIdParams,
      query: TenantQuery,
      body: DuplicationRulePatch,
      responses: { 200: DuplicationRule },
    },
  ],
};
