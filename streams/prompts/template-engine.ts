import { parse, Template, tokenize } from '@huggingface/jinja';
import { checkSyntax, type Positioned, TemplateSyntaxError } from './template-syntax';

/**
 * The sandboxed template engine: @huggingface/jinja interprets templates over its own value
 * types (no JavaScript object is reachable from a template), and this module narrows it
 * further to a safe subset checked before a version is stored: text, `{{ }}` output, `if`,
 * `for` over data or a small literal `range`, `set`, whitelisted filters and tests. Refused:
 * includes, imports, macros, calls, attribute access to internals (`_x`, `constructor`…),
 * deep or unbounded loops. A template that fails the subset is never rendered.
 */
export const SAFE_FILTERS = new Set([
  'upper',
  'lower',
  'title',
  'capitalize',
  'trim',
  'length',
  'count',
  'join',
  'default',
  'd',
  'first',
  'last',
  'string',
  'int',
  'float',
  'round',
  'replace',
  'list',
  'sort',
  'unique',
  'abs',
  'wordcount',
  'indent',
  'tojson',
  'items',
  'reverse',
  'escape',
  'e',
  'dictsort',
  'truncate',
  'center',
  'safe',
]);
const INTERNAL_NAMES = new Set([
  'constructor',
  'prototype',
  'mro',
  'globals',
  'builtins',
  'subclasses',
  'func_globals',
  'self',
  'cycler',
  'joiner',
  'namespace',
  'lipsum',
  'config',
  'request',
]);
const ENGINE_NAMES = new Set(['loop', 'true', 'false', 'none', 'True', 'False', 'None', 'range']);
const MAX_LOOP_DEPTH = 3;
const WIDTH_FILTERS = new Set(['indent', 'center']);
const MAX_WIDTH = 200;
const BOOLEAN_NAMES = new Set(['true', 'false', 'True', 'False']);
const MAX_RANGE_ITERATIONS = 10_000;

export interface Analysis {
  syntaxErrors: Positioned[];
  subsetErrors: Positioned[];
  variables: string[];
}

type Node = { type: string; [key: string]: any };

const isInternal = (name: string) => name.startsWith('_') || INTERNAL_NAMES.has(name);

/** Syntax, subset and the variables a template reads, in order of first use. */
export function analyseTemplate(source: string): Analysis {
  const { syntax, subset } = checkSyntax(source);
  if (syntax.length > 0) return { syntaxErrors: syntax, subsetErrors: subset, variables: [] };
  let program: Node;
  try {
    program = parse(tokenize(stripForbidden(source))) as unknown as Node;
  } catch (error) {
    return {
      syntaxErrors: [{ message: (error as Error).message, line: 1, column: 1 }],
      subsetErrors: subset,
      variables: [],
    };
  }
  const walker = new SubsetWalker();
  walker.statements(program.body, new Set(), 0, 1);
  return {
    syntaxErrors: [],
    subsetErrors: [...subset, ...walker.problems.map((message) => ({ message, line: 0, column: 0 }))],
    variables: [...walker.free],
  };
}

/** Forbidden tags were reported by the scan; removing them lets the walker report the rest. */
function stripForbidden(source: string): string {
  return source.replace(
    /\{%-?\s*(include|import|from|extends|block|endblock|macro|endmacro|call|endcall|filter|endfilter|raw|endraw|with|endwith|generation|endgeneration|do|autoescape|endautoescape)\b[\s\S]*?-?%\}/g,
    '',
  );
}

class SubsetWalker {
  readonly problems: string[] = [];
  readonly free = new Set<string>();

  private refuse(message: string) {
    if (!this.problems.includes(message)) this.problems.push(message);
  }

  statements(nodes: Node[], bound: Set<string>, depth: number, iterations: number): void {
    for (const node of nodes) this.statement(node, bound, depth, iterations);
  }

  private statement(node: Node, bound: Set<string>, depth: number, iterations: number): void {
    switch (node.type) {
      case 'Comment':
      case 'Break':
      case 'Continue':
        return;
      case 'If':
        this.expression(node.test, bound);
        this.statements(node.body, bound, depth, iterations);
        this.statements(node.alternate, bound, depth, iterations);
        return;
      case 'For': {
        if (depth + 1 > MAX_LOOP_DEPTH)
          this.refuse(`loops nested deeper than ${MAX_LOOP_DEPTH} are outside the safe subset`);
        const bound2 = new Set(bound);
        const vars = node.loopvar.type === 'Identifier' ? [node.loopvar] : node.loopvar.value;
        for (const v of vars) if (v.type === 'Identifier') bound2.add(v.value);
        const rangeSize = this.iterable(node.iterable, bound);
        const total = iterations * (rangeSize ?? 1);
        if (total > MAX_RANGE_ITERATIONS)
          this.refuse(`range loops over more than ${MAX_RANGE_ITERATIONS} iterations are outside the safe subset`);
        this.statements(node.body, bound2, depth + 1, total);
        this.statements(node.defaultBlock ?? [], bound, depth, iterations);
        return;
      }
      case 'Set': {
        if (node.value) this.expression(node.value, bound);
        this.statements(node.body ?? [], bound, depth, iterations);
        const targets = node.assignee.type === 'Identifier' ? [node.assignee] : (node.assignee.value ?? []);
        for (const t of targets) if (t.type === 'Identifier') bound.add(t.value);
        if (node.assignee.type === 'MemberExpression')
          this.refuse('assigning to attributes is outside the safe subset');
        return;
      }
      case 'Macro':
      case 'CallStatement':
      case 'FilterStatement':
        this.refuse(`${node.type} blocks are outside the safe subset`);
        return;
      default:
        this.expression(node, bound);
    }
  }

  /** Literal `range(...)` loops have a known size; data loops are bounded by the data given. */
  private iterable(node: Node, bound: Set<string>): number | null {
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.value === 'range') {
      const args = node.args as Node[];
      if (args.length < 1 || args.length > 3 || !args.every((a) => a.type === 'IntegerLiteral')) {
        this.refuse('range() takes only integer literals in the safe subset');
        return null;
      }
      const [start, stop, step] =
        args.length === 1 ? [0, args[0].value, 1] : [args[0].value, args[1].value, args[2]?.value ?? 1];
      if (step === 0) this.refuse('range() with a zero step never ends');
      return step === 0 ? null : Math.max(0, Math.ceil((stop - start) / step));
    }
    this.expression(node, bound);
    return null;
  }

  private expression(node: Node | undefined | null, bound: Set<string>): void {
    if (!node) return;
    switch (node.type) {
      case 'Identifier':
        if (isInternal(node.value)) this.refuse(`the name ${node.value} is outside the safe subset`);
        else if (!bound.has(node.value) && !ENGINE_NAMES.has(node.value)) this.free.add(node.value);
        return;
      case 'IntegerLiteral':
      case 'FloatLiteral':
      case 'StringLiteral':
        return;
      case 'ArrayLiteral':
      case 'TupleLiteral':
        for (const item of node.value) this.expression(item, bound);
        return;
      case 'ObjectLiteral':
        for (const [k, v] of node.value as Map<Node, Node>) {
          this.expression(k, bound);
          this.expression(v, bound);
        }
        return;
      case 'MemberExpression': {
        this.expression(node.object, bound);
        const property = node.property as Node;
        if (!node.computed && property.type === 'Identifier') {
          if (isInternal(property.value))
            this.refuse(`attribute access to ${property.value} is outside the safe subset`);
        } else if (property.type === 'StringLiteral' && isInternal(property.value)) {
          this.refuse(`attribute access to ${property.value} is outside the safe subset`);
        } else if (property.type === 'SliceExpression') {
          for (const part of [property.start, property.stop, property.step]) this.expression(part, bound);
        } else this.expression(property, bound);
        return;
      }
      case 'FilterExpression': {
        this.expression(node.operand, bound);
        const filter = node.filter as Node;
        const name =
          filter.type === 'Identifier'
            ? filter.value
            : filter.type === 'CallExpression' && filter.callee.type === 'Identifier'
              ? filter.callee.value
              : null;
        if (!name || !SAFE_FILTERS.has(name)) this.refuse(`the filter ${name ?? '?'} is outside the safe subset`);
        if (filter.type === 'CallExpression') {
          const args = (filter.args as Node[]).map((arg) =>
            arg.type === 'KeywordArgumentExpression' ? arg.value : arg,
          );
          // Width arguments multiply the output: only small literal numbers (and literal flags).
          if (name && WIDTH_FILTERS.has(name)) {
            const literal = (a: Node) =>
              a.type === 'IntegerLiteral' ||
              a.type === 'StringLiteral' ||
              (a.type === 'Identifier' && BOOLEAN_NAMES.has(a.value));
            if (!args.every(literal)) this.refuse(`${name} takes only literal arguments in the safe subset`);
            else if (args.some((a) => a.type === 'IntegerLiteral' && a.value > MAX_WIDTH))
              this.refuse(`${name} widths above ${MAX_WIDTH} are outside the safe subset`);
          }
          for (const arg of args) this.expression(arg, bound);
        }
        return;
      }
      case 'TestExpression':
        this.expression(node.operand, bound);
        return;
      case 'SelectExpression':
        this.expression(node.lhs, bound);
        this.expression(node.test, bound);
        return;
      case 'Ternary':
        this.expression(node.condition, bound);
        this.expression(node.trueExpr, bound);
        this.expression(node.falseExpr, bound);
        return;
      case 'BinaryExpression':
        this.expression(node.left, bound);
        this.expression(node.right, bound);
        return;
      case 'UnaryExpression':
        this.expression(node.argument, bound);
        return;
      case 'CallExpression':
        this.refuse(
          `function calls are outside the safe subset${node.callee.type === 'Identifier' ? ` (${node.callee.value}())` : ''}`,
        );
        return;
      default:
        this.refuse(`${node.type} is outside the safe subset`);
    }
  }
}

export class RenderFailed extends Error {}

/** Renders a template that passed the subset check; unknown or missing variables are the caller's to refuse. */
export function renderTemplate(source: string, variables: Record<string, unknown>): string {
  const analysis = analyseTemplate(source);
  if (analysis.syntaxErrors.length > 0) throw new TemplateSyntaxError(analysis.syntaxErrors);
  if (analysis.subsetErrors.length > 0)
    throw new RenderFailed(
      `the template is outside the safe subset: ${analysis.subsetErrors.map((e) => e.message).join('; ')}`,
    );
  try {
    return new Template(source).render(variables);
  } catch (error) {
    throw new RenderFailed((error as Error).message);
  }
}
