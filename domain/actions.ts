/**
 * What a refusal says first: the action that failed, naming the object
 * (`Cannot create cluster "team-a/blue"`), as every error message of the
 * API begins (the failed action first, the detail after a colon).
 */

/** `Cannot <verb> cluster "team-a/blue"` (less when name or namespace is unknown). */
export function clusterAction(
  verb: string,
  namespace: string,
  name = "",
): string {
  return `Cannot ${verb} cluster${describe(namespace, name)}`;
}

/** `Cannot <verb> compute template "team-a/big"`. */
export function computeTemplateAction(
  verb: string,
  namespace: string,
  name = "",
): string {
  return `Cannot ${verb} compute template${describe(namespace, name)}`;
}

/** ` "team-a/blue"`, ` "blue"`, ` in namespace "team-a"` or nothing. */
function describe(namespace: string, name: string): string {
  if (name !== "" && namespace !== "") return ` "${namespace}/${name}"`;
  if (name !== "") return ` "${name}"`;
  if (namespace !== "") return ` in namespace "${namespace}"`;
  return "";
}
