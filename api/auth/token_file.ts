/**
 * Static bearer tokens from a CSV file, the format of the Kubernetes API
 * server's --token-auth-file:
 *
 *     token,user,uid,"group1,group2"
 *
 * Read as kube-apiserver reads it (k8s.io/apiserver tokenfile.NewCSV over Go's
 * encoding/csv with a variable number of fields):
 * - empty lines are skipped; there are no comments: a line starting with `#`
 *   is a record like any other (so `# note` fails, having under 3 columns);
 * - a record has at least 3 fields (token, user name, uid); a fourth holds
 *   the groups, split on commas; further fields are ignored;
 * - fields are RFC 4180: a field that starts with `"` is quoted, `""` is a
 *   quote inside it, and it may hold commas and line breaks; a `"` inside an
 *   unquoted field, or text after a closing quote, is an error; spaces are
 *   kept as they are;
 * - a record with an empty token is skipped with a warning;
 * - a token given twice: the later line wins, with a warning.
 * Where this differs from kube-apiserver, on purpose:
 * - an empty user name is an error (kube-apiserver takes it as the user "");
 * - a token shorter than MIN_TOKEN_LENGTH is an error: a short static token
 *   can be guessed, and a static token is never typed by hand;
 * - a user or group name beginning `system:` is an error: those names are
 *   the ones Corral and the Kubernetes API server give (system:anonymous,
 *   system:authenticated, system:serviceaccount:...), and a line must not
 *   be able to claim one;
 * - empty group names are dropped (kube-apiserver's strings.Split turns an
 *   empty fourth field into the group "");
 * - a file with no token is an error, at start-up and on reload, so that a
 *   file truncated while being rewritten is never taken for "no tokens";
 * - the file is re-read when it changes (watched_file.ts); kube-apiserver
 *   reads it once.
 *
 * Outcomes: a known token gives its Identity; any other token is "not mine"
 * (undefined), as in kube-apiserver. It never throws.
 *
 * The CSV reader is written here rather than taken from a library: it has to
 * accept and refuse exactly what Go's encoding/csv does, so a file that works
 * with kube-apiserver works here; and its errors must name the line without
 * quoting the text, which holds secrets (CSV libraries put the offending
 * field in their messages).
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { RESERVED_PREFIX } from "./identity.ts";
import type { Authenticator, Identity } from "./identity.ts";
import {
  type Reloadable,
  type WatchedFileSettings,
  watchFile,
} from "./watched_file.ts";

/** One line of a token file. */
export interface TokenRecord {
  /** The line the record starts on, from 1. */
  line: number;
  token: string;
  user: string;
  uid?: string;
  groups: string[];
}

export interface ParsedTokenFile {
  records: TokenRecord[];
  /** Things worth a log line that do not stop the file from loading. */
  warnings: string[];
}

/**
 * The fewest characters a token may have: 32, 128 bits as hex, which no one
 * guesses through an API. The error, as docs/policy.md, suggests `openssl rand
 * -hex 32`, twice that: a token made to the minimum has no margin.
 */
const MIN_TOKEN_LENGTH = 32;

/** The characters of an RFC 6750 b64token, the only ones a bearer token can carry. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Parses a token file; throws an Error naming the first bad line. Duplicate
 * tokens are resolved (the later line wins), so each token appears once.
 */
export function parseTokenFile(text: string): ParsedTokenFile {
  const warnings: string[] = [];
  const byToken = new Map<string, TokenRecord>();
  for (const { line, fields } of readCsv(text)) {
    if (fields.length < 3) {
      const hint = fields[0].startsWith("#")
        ? " (comments are not supported)"
        : "";
      throw new Error(
        `line ${line}: expected at least 3 columns (token, user name, user uid), found ${fields.length}${hint}`,
      );
    }
    const [token, user, uid, groups] = fields;
    if (token === "") {
      warnings.push(`line ${line}: the token is empty; the line is skipped`);
      continue;
    }
    if (user === "") throw new Error(`line ${line}: the user name is empty`);
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new Error(
        `line ${line}: the token is shorter than ${MIN_TOKEN_LENGTH} characters (make one with: openssl rand -hex 32)`,
      );
    }
    const groupNames = groups === undefined
      ? []
      : groups.split(",").filter(Boolean);
    refuseReserved(line, user, groupNames);
    if (!B64TOKEN.test(token)) {
      warnings.push(
        `line ${line}: the token has characters a bearer token cannot carry, so it can never be presented`,
      );
    }
    const earlier = byToken.get(token);
    if (earlier) {
      warnings.push(
        `line ${line}: the token of line ${earlier.line} is given again; the later line wins`,
      );
      byToken.delete(token);
    }
    byToken.set(token, {
      line,
      token,
      user,
      ...(uid ? { uid } : {}),
      groups: groupNames,
    });
  }
  if (byToken.size === 0) throw new Error("the file has no tokens");
  return { records: [...byToken.values()], warnings };
}

/** Throws, naming the line, for a user or group name that begins `system:`. */
function refuseReserved(line: number, user: string, groups: string[]): void {
  const reserved = (name: string) => name.startsWith(RESERVED_PREFIX);
  if (reserved(user)) {
    throw new Error(
      `line ${line}: the user name "${user}" begins with "${RESERVED_PREFIX}", which is reserved for the names Corral gives`,
    );
  }
  const group = groups.find(reserved);
  if (group !== undefined) {
    throw new Error(
      `line ${line}: the group "${group}" begins with "${RESERVED_PREFIX}", which is reserved for the groups Corral gives`,
    );
  }
}

interface CsvRecord {
  line: number;
  fields: string[];
}

/** Go's encoding/csv with FieldsPerRecord = -1, LazyQuotes and Comment off. */
function readCsv(input: string): CsvRecord[] {
  // Go's reader takes "\r\n" as "\n", inside quoted fields too.
  const text = input.replaceAll("\r\n", "\n");
  const records: CsvRecord[] = [];
  let pos = 0;
  let line = 1;
  while (pos < text.length) {
    if (text[pos] === "\n") { // an empty line
      pos++;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    let endOfRecord = false;
    while (!endOfRecord) {
      let field = "";
      if (text[pos] === '"') {
        pos++;
        for (;;) {
          const quote = text.indexOf('"', pos);
          if (quote === -1) {
            throw new Error(`line ${start}: a quoted field is not closed`);
          }
          const chunk = text.slice(pos, quote);
          line += chunk.split("\n").length - 1;
          field += chunk;
          pos = quote + 1;
          const next = text[pos];
          if (next === '"') { // "" is one quote
            field += '"';
            pos++;
          } else if (next === ",") {
            pos++;
            break;
          } else if (next === "\n" || next === undefined) {
            endOfRecord = true;
            break;
          } else {
            throw new Error(
              `line ${line}: a quoted field is followed by something other than a comma`,
            );
          }
        }
      } else {
        let end = pos;
        while (end < text.length && text[end] !== "," && text[end] !== "\n") {
          end++;
        }
        field = text.slice(pos, end);
        if (field.includes('"')) {
          throw new Error(
            `line ${line}: a quote inside a field that does not start with one`,
          );
        }
        pos = end;
        if (text[pos] === ",") pos++;
        else endOfRecord = true;
      }
      fields.push(field);
    }
    if (text[pos] === "\n") {
      pos++;
      line++;
    }
    records.push({ line: start, fields });
  }
  return records;
}

interface Entry {
  digest: Uint8Array;
  identity: Identity;
}

function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

/**
 * A lookup whose time does not depend on the presented token. Both sides
 * are SHA-256 digests, so every comparison is of 32 bytes whatever the
 * tokens' lengths; timingSafeEqual takes the same time wherever the digests
 * differ; and every entry is compared, with no exit on a match, so the time
 * depends only on how many tokens the file has. (A Map keyed by the token
 * would compare strings byte by byte and stop at the first difference.)
 */
export function tokenLookup(
  records: TokenRecord[],
): (token: string) => Identity | undefined {
  const entries: Entry[] = records.map((record) => ({
    digest: sha256(record.token),
    identity: {
      user: record.user,
      ...(record.uid ? { uid: record.uid } : {}),
      groups: record.groups,
      authenticator: "token-file",
    },
  }));
  return (token) => {
    const presented = sha256(token);
    let found: Identity | undefined;
    for (const entry of entries) {
      if (timingSafeEqual(presented, entry.digest)) found = entry.identity;
    }
    return found && { ...found, groups: [...found.groups] };
  };
}

/** --token-auth-file, and who is told when it changes. */
export type TokenFileOptions = WatchedFileSettings;

/** The token-file authenticator, which reloads its file and closes. */
export type TokenFileAuthenticator = Authenticator & Reloadable;

/**
 * The token-file authenticator. Resolves once the file has loaded; rejects
 * with INVALID_ARGUMENT naming the line if it does not parse.
 */
export async function tokenFileAuthenticator(
  options: TokenFileOptions,
): Promise<TokenFileAuthenticator> {
  const log = options.log.with({ authenticator: "token-file" });
  const file = await watchFile({
    ...options,
    kind: "token file",
    log,
    parse(text) {
      const { records, warnings } = parseTokenFile(text);
      for (const warning of warnings) {
        log.warn("Read token file with a warning", {
          path: options.path,
          warning,
        });
      }
      return { lookup: tokenLookup(records), count: records.length };
    },
    onLoad: ({ count }) =>
      log.info("Loaded tokens", { path: options.path, tokens: count }),
  });
  return {
    name: "token-file",
    authenticate: (token) => Promise.resolve(file.current().lookup(token)),
    reload: () => file.reload(),
    close: () => file.close(),
  };
}
