/**
 * Kubernetes label selectors as a list's `labelSelector` gives them:
 * requirements joined by commas, each `key`, `!key`, `key=value`,
 * `key==value`, `key!=value`, `key in (a,b)` or `key notin (a,b)`
 * (apimachinery's labels.Parse). An object matches when it meets every one.
 */

/** One requirement of a selector. */
interface Requirement {
  key: string;
  operator: "exists" | "absent" | "in" | "notin";
  values: string[];
}

/** A parsed selector: whether labels match it. */
export type LabelSelector = (
  labels: Record<string, string> | undefined,
) => boolean;

/**
 * The selector `text` says; a description of what is wrong with it
 * otherwise. The empty selector matches everything.
 */
export function parseLabelSelector(
  text: string,
): LabelSelector | { problem: string } {
  const requirements: Requirement[] = [];
  for (const part of topLevelParts(text)) {
    const requirement = requirementOf(part.trim());
    if (typeof requirement === "string") return { problem: requirement };
    requirements.push(requirement);
  }
  return (labels) => requirements.every((r) => meets(r, labels ?? {}));
}

/** `text` split at the commas outside parentheses; none for blank text. */
function topLevelParts(text: string): string[] {
  if (text.trim() === "") return [];
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

const SET = /^(\S+)\s+(in|notin)\s+\(([^()]*)\)$/;
const EQUALITY = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/;
const KEY = /^(!?)\s*([^!=\s(),]+)$/;

/** One requirement, or what is wrong with it. */
function requirementOf(part: string): Requirement | string {
  const set = SET.exec(part);
  if (set) {
    const values = set[3].split(",").map((v) => v.trim());
    return { key: set[1], operator: set[2] as "in" | "notin", values };
  }
  const equality = EQUALITY.exec(part);
  if (equality) {
    return {
      key: equality[1],
      operator: equality[2] === "!=" ? "notin" : "in",
      values: [equality[3]],
    };
  }
  const key = KEY.exec(part);
  if (key) {
    return { key: key[2], operator: key[1] ? "absent" : "exists", values: [] };
  }
  return `unable to parse requirement: "${part.slice(0, 100)}"`;
}

function meets(
  requirement: Requirement,
  labels: Record<string, string>,
): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  switch (requirement.operator) {
    case "exists":
      return has;
    case "absent":
      return !has;
    case "in":
      return has && requirement.values.includes(labels[requirement.key]);
    case "notin":
      return !has || !requirement.values.includes(labels[requirement.key]);
  }
}
