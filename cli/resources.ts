/**
 * What `clusters` and `templates` share: the kinds of object the CLI lists
 * and gets, their -o and -A flags, how they print (a kubectl-style table,
 * or the API's answer as JSON or YAML), and the list and get commands,
 * made once from a kind's routes and table.
 */
import {
  type Flags,
  noPositionals,
  onePositional,
  type ParsedArgs,
} from "./args.ts";
import { withClient, write } from "./command.ts";
import { EXIT_OK } from "./errors.ts";
import {
  formatObject,
  formatTable,
  type OutputFormat,
  outputFormat,
} from "./output.ts";

export const OUTPUT: Flags = {
  output: {
    type: "string",
    short: "o",
    value: "FORMAT",
    help: "table (default), wide (more columns), json or yaml",
  },
};

export const ALL_NAMESPACES: Flags = {
  "all-namespaces": {
    type: "boolean",
    short: "A",
    help: "every namespace you may see",
  },
};

/** A kind of object: its routes, its list answer's field and its table. */
export interface Kind<T> {
  /** "cluster", as positionals name it: "a cluster name". */
  noun: string;
  /** "clusters", in "No clusters found.". */
  plural: string;
  /** The field of a list answer holding the objects: "clusters". */
  listField: string;
  /** The route of every namespace's objects. */
  allPath: string;
  /** The route of a namespace's objects, or of one of them. */
  path(namespace: string, name?: string): string;
  /** The table's column titles, without NAMESPACE. */
  header: readonly string[];
  /** An object's cells, without its namespace. */
  cells(item: T): string[];
  namespaceOf(item: T): string;
  /** Columns -o wide adds after the table's, if any. */
  wideHeader?: readonly string[];
  /** An object's -o wide cells; `server` is Corral's URL, for links. */
  wideCells?(item: T, server: string): string[];
}

/**
 * A kind's column titles, NAMESPACE first when `withNamespace`, the wide
 * ones last when `wide`.
 */
export function headerOf<T>(
  kind: Kind<T>,
  withNamespace: boolean,
  wide = false,
): string[] {
  return [
    ...(withNamespace ? ["NAMESPACE"] : []),
    ...kind.header,
    ...(wide ? kind.wideHeader ?? [] : []),
  ];
}

/**
 * An object's cells, its namespace first when `withNamespace`, the wide
 * ones last when `server` (Corral's URL) is given.
 */
export function rowOf<T>(
  kind: Kind<T>,
  item: T,
  withNamespace: boolean,
  server?: string,
): string[] {
  return [
    ...(withNamespace ? [kind.namespaceOf(item)] : []),
    ...kind.cells(item),
    ...(server !== undefined ? kind.wideCells?.(item, server) ?? [] : []),
  ];
}

/**
 * Prints objects as -o asks: a table (wide: with the kind's wide columns,
 * `server` in their links), or the answer's JSON or YAML (`single` for a
 * get, which answers the object itself).
 */
export function printObjects<T>(
  kind: Kind<T>,
  items: T[],
  format: OutputFormat,
  withNamespace: boolean,
  single?: T,
  server = "",
): void {
  if (format === "json" || format === "yaml") {
    write(formatObject(single ?? { [kind.listField]: items }, format));
  } else if (items.length === 0) {
    console.error(`No ${kind.plural} found.`);
  } else {
    const wide = format === "wide";
    write(formatTable(
      headerOf(kind, withNamespace, wide),
      items.map((item) =>
        rowOf(kind, item, withNamespace, wide ? server : undefined)
      ),
    ));
  }
}

/** `list [-n NS | -A] [-o FORMAT]`: a namespace's objects, or all. */
export function listObjects<T>(kind: Kind<T>, usage: string) {
  return async ({ values, positionals }: ParsedArgs): Promise<number> => {
    noPositionals(positionals, usage);
    const format = outputFormat(values.output);
    const all = values["all-namespaces"] === true;
    return await withClient(values, async (client, { namespace, server }) => {
      const answer = await client.call<Record<string, T[] | undefined>>(
        "GET",
        all ? kind.allPath : kind.path(namespace),
      );
      const items = answer[kind.listField] ?? [];
      printObjects(kind, items, format, all, undefined, server);
      return EXIT_OK;
    });
  };
}

/** `get NAME [-n NS] [-o FORMAT]`: one object. */
export function getObject<T>(kind: Kind<T>, usage: string) {
  return async ({ values, positionals }: ParsedArgs): Promise<number> => {
    const name = onePositional(positionals, `a ${kind.noun} name`, usage);
    const format = outputFormat(values.output);
    return await withClient(values, async (client, { namespace, server }) => {
      const item = await client.call<T>("GET", kind.path(namespace, name));
      printObjects(kind, [item], format, false, item, server);
      return EXIT_OK;
    });
  };
}
