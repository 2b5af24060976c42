/**
 * Kubernetes label and field selectors: parsing and matching, with the
 * grammar and semantics of k8s.io/apimachinery (pkg/labels/selector.go and
 * pkg/fields/selector.go). Pure functions; the stand-in uses them to answer
 * `labelSelector` and `fieldSelector` list parameters.
 */

import { labelValueError, qualifiedNameError } from "./metadata_validation.ts";

/** A selector that cannot be parsed; the stand-in answers it with 400. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

// ---------------------------------------------------------------------------
// Label selectors

export type LabelOperator =
  | "exists"
  | "!"
  | "="
  | "=="
  | "!="
  | "in"
  | "notin"
  | ">"
  | "<";

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** A parsed label selector: requirements that must all hold (AND). */
export type LabelSelector = LabelRequirement[];

type TokenKind =
  | "identifier"
  | "end"
  | "("
  | ")"
  | ","
  | "!"
  | "="
  | "=="
  | "!="
  | ">"
  | "<"
  | "in"
  | "notin";

interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const MULTI_CHAR_OPERATORS: TokenKind[] = ["==", "!="];

function isWhitespace(c: string): boolean {
  return c === " " || c === "\t" || c === "\r" || c === "\n";
}

/** Splits a label selector into tokens as the apimachinery lexer does. */
function lexLabels(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (isWhitespace(c)) {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = input.slice(i, i + 2) as TokenKind;
      if (MULTI_CHAR_OPERATORS.includes(two)) {
        tokens.push({ kind: two, text: two });
        i += 2;
      } else {
        tokens.push({ kind: c as TokenKind, text: c });
        i++;
      }
      continue;
    }
    let j = i;
    while (
      j < input.length && !isWhitespace(input[j]) && !SPECIAL.has(input[j])
    ) {
      j++;
    }
    const text = input.slice(i, j);
    const kind: TokenKind = text === "in" || text === "notin"
      ? text
      : "identifier";
    tokens.push({ kind, text });
    i = j;
  }
  tokens.push({ kind: "end", text: "" });
  return tokens;
}

/**
 * Parses a label selector such as `app=web,tier!=db,env in (a,b),!legacy`.
 * Throws SelectorError with apimachinery-style messages.
 */
export function parseLabelSelector(input: string): LabelSelector {
  return new LabelParser(lexLabels(input)).selector();
}

/** A recursive-descent parser over a label selector's tokens. */
class LabelParser {
  #position = 0;

  constructor(private readonly tokens: Token[]) {}

  selector(): LabelSelector {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const token = this.#peek();
      if (token.kind === "end") break;
      if (token.kind !== "identifier" && token.kind !== "!") {
        fail(token, "!, identifier, or 'end of string'");
      }
      requirements.push(this.#requirement());
      const separator = this.#next();
      if (separator.kind === "end") break;
      if (separator.kind !== ",") fail(separator, "',' or 'end of string'");
      if (this.#peek().kind === "end") {
        fail(this.#peek(), "identifier after ','");
      }
    }
    return requirements;
  }

  #peek(): Token {
    return this.tokens[this.#position];
  }

  #next(): Token {
    return this.tokens[this.#position++];
  }

  #requirement(): LabelRequirement {
    let operator: LabelOperator = "exists";
    if (this.#peek().kind === "!") {
      this.#next();
      operator = "!";
    }
    const keyToken = this.#next();
    if (keyToken.kind !== "identifier") {
      fail(keyToken, operator === "!" ? "identifier after '!'" : "identifier");
    }
    const key = keyToken.text;
    const keyError = qualifiedNameError(key);
    if (keyError) {
      throw new SelectorError(
        `unable to parse requirement: key: Invalid value: "${key}": ${keyError}`,
      );
    }
    const after = this.#peek();
    if (after.kind === "end" || after.kind === ",") {
      return { key, operator, values: [] };
    }
    if (operator === "!") fail(after, "',' or 'end of string'");
    const op = this.#next();
    const values = this.#operands(op);
    checkValues(key, op, values);
    return { key, operator: op.kind as LabelOperator, values };
  }

  /** The values after operator `op`. */
  #operands(op: Token): string[] {
    switch (op.kind) {
      case "in":
      case "notin":
        return this.#values();
      case "=":
      case "==":
      case "!=":
      case ">":
      case "<": {
        const value = this.#peek();
        if (value.kind === "identifier") return [this.#next().text];
        if (value.kind === "end" || value.kind === ",") return [""];
        return fail(value, "identifier");
      }
      default:
        return fail(op, "[!=, ==, =, in, notin, >, <]");
    }
  }

  /** `(a,b)`; an empty value is allowed between separators: `in (,a)`. */
  #values(): string[] {
    const open = this.#next();
    if (open.kind !== "(") fail(open, "'('");
    const values: string[] = [];
    for (;;) {
      const token = this.#peek();
      if (token.kind === "identifier") {
        values.push(this.#next().text);
        const after = this.#next();
        if (after.kind === ")") return values;
        if (after.kind !== ",") fail(after, "',' or ')'");
      } else if (token.kind === ",") {
        this.#next();
        values.push("");
      } else if (token.kind === ")") {
        this.#next();
        if (
          values.length === 0 ||
          this.tokens[this.#position - 2].kind === ","
        ) {
          values.push("");
        }
        return values;
      } else {
        fail(token, "',', ')' or identifier");
      }
    }
  }
}

function fail(found: Token, expected: string): never {
  throw new SelectorError(
    `unable to parse requirement: found '${found.text}', expected: ${expected}`,
  );
}

/** Gt and Lt take integers; every other operator label values. */
function checkValues(key: string, op: Token, values: string[]): void {
  for (const value of values) {
    if (op.kind === ">" || op.kind === "<") {
      if (!/^-?\d+$/.test(value)) {
        throw new SelectorError(
          `unable to parse requirement: values[0]: Invalid value: "${value}": for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      }
      continue;
    }
    const valueError = labelValueError(value);
    if (valueError) {
      throw new SelectorError(
        `unable to parse requirement: values[0][${key}]: Invalid value: "${value}": ${valueError}`,
      );
    }
  }
}

/** Whether labels satisfy every requirement of the selector. */
export function matchesLabels(
  selector: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  const has = (key: string) =>
    labels !== undefined && Object.hasOwn(labels, key);
  return selector.every(({ key, operator, values }) => {
    const value = has(key) ? labels![key] : undefined;
    switch (operator) {
      case "exists":
        return value !== undefined;
      case "!":
        return value === undefined;
      case "=":
      case "==":
      case "in":
        return value !== undefined && values.includes(value);
      case "!=":
      case "notin":
        return value === undefined || !values.includes(value);
      case ">":
      case "<": {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const got = Number(value);
        const want = Number(values[0]);
        return operator === ">" ? got > want : got < want;
      }
    }
  });
}

// ---------------------------------------------------------------------------
// Field selectors

export interface FieldRequirement {
  field: string;
  operator: "=" | "==" | "!=";
  value: string;
}

export type FieldSelector = FieldRequirement[];

/** Splits on separators not preceded by a backslash escape. */
function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === "\\" && i + 1 < input.length) {
      current += c + input[i + 1];
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescapeFieldValue(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const escaped = value[i + 1];
    if (escaped !== "\\" && escaped !== "," && escaped !== "=") {
      throw new SelectorError(
        `invalid field selector: invalid escape sequence: \\${escaped ?? ""}`,
      );
    }
    out += escaped;
    i++;
  }
  return out;
}

/**
 * Parses a field selector such as `involvedObject.kind=RayCluster,type!=Normal`.
 * Only `=`, `==` and `!=` exist for fields.
 */
export function parseFieldSelector(input: string): FieldSelector {
  if (input.trim() === "") return [];
  return splitUnescaped(input, ",").map((term) => {
    for (let i = 0; i < term.length; i++) {
      if (term[i] === "\\") {
        i++;
        continue;
      }
      for (const operator of ["!=", "==", "="] as const) {
        if (term.startsWith(operator, i)) {
          const field = term.slice(0, i).trim();
          if (field === "") break;
          return {
            field,
            operator,
            value: unescapeFieldValue(term.slice(i + operator.length)),
          };
        }
      }
    }
    throw new SelectorError(
      `invalid selector: '${input}'; can't understand '${term}'`,
    );
  });
}

/** Whether the object's selectable field values satisfy the selector. */
export function matchesFields(
  selector: FieldSelector,
  fields: Record<string, string>,
): boolean {
  return selector.every(({ field, operator, value }) => {
    const got = fields[field] ?? "";
    return operator === "!=" ? got !== value : got === value;
  });
}
