/**
 * The people and the policy of the access tests, written to real files (a
 * token file in the kube-apiserver format, a policy file) in a temporary
 * directory and read by createAccess() as main.ts reads them.
 *
 * alice may do everything in team-a; bob, by his group team-b, everything
 * in team-b; carol may only get and list in team-a; root, by his group
 * admins, everything everywhere, HOST_PATH volumes included; dave has a
 * token and no rule; "alice@example.com" is alice's e-mail identity, also
 * granted team-a.
 */
import { type Access, createAccess } from "../../../api/auth/access.ts";
import { silentLogger } from "../../../api/log.ts";
import type { Logger } from "../../../domain/log.ts";
import {
  allow,
  allowAll,
  type Grant,
  groups,
  policyText,
  users,
} from "./policy_fixtures.ts";

export interface Person {
  /** What the tests call them. */
  name: string;
  /** The username the token file gives. */
  user: string;
  groups: string[];
  token: string;
}

/** A token of 40 characters made of the person's name, easy to spot. */
function tokenOf(name: string): string {
  const base = name.replace(/[^a-z0-9]/g, "");
  return `${base}-${"0123456789abcdef".repeat(3)}`.slice(0, 40);
}

/** Someone with a token made of their name. */
export function person(
  name: string,
  user: string,
  groups: string[] = [],
): Person {
  return { name, user, groups, token: tokenOf(name) };
}

export const ALICE = person("alice", "alice");
export const BOB = person("bob", "bob", ["team-b"]);
export const CAROL = person("carol", "carol");
export const ROOT = person("root", "root", ["admins"]);
export const DAVE = person("dave", "dave");
export const ALICE_MAIL = person("alice-mail", "alice@example.com");

export const PEOPLE = [ALICE, BOB, CAROL, ROOT, DAVE, ALICE_MAIL];

/** The token file of `people`: token,user,uid,"groups". */
export function tokenFileText(people: Person[] = PEOPLE): string {
  return people.map((p, i) =>
    `${p.token},${p.user},${1000 + i},"${p.groups.join(",")}"`
  ).join("\n") + "\n";
}

/** The people's rules (see the top of this file). */
export const RULES: Grant[] = [
  allowAll(users("alice", "alice@example.com"), ["team-a"]),
  allowAll(groups("team-b"), ["team-b"]),
  allow(users("carol"), ["team-a"], ["*"], ["get", "list"]),
  // "*" covers no kube-* namespace: a rule names one to grant it.
  allowAll(groups("admins"), ["*", "kube-system"], { allowHostPath: true }),
];

/** The people's policy file. */
export const POLICY = policyText(RULES);

/** `Bearer <token>` */
export function bearer(person: Person): string {
  return `Bearer ${person.token}`;
}

export interface AccessFiles {
  dir: string;
  tokenFile: string;
  policyFile: string;
  auditLog: string;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** The token file and policy in a new temporary directory. */
export async function writeAccessFiles(
  options: { tokens?: string; policy?: string } = {},
): Promise<AccessFiles> {
  const dir = await Deno.makeTempDir({ prefix: "corral-access-" });
  const files = {
    dir,
    tokenFile: `${dir}/tokens.csv`,
    policyFile: `${dir}/policy.yaml`,
    auditLog: `${dir}/audit.log`,
    remove: () => Deno.remove(dir, { recursive: true }),
  };
  await Deno.writeTextFile(files.tokenFile, options.tokens ?? tokenFileText());
  await Deno.writeTextFile(files.policyFile, options.policy ?? POLICY);
  return files;
}

export interface TestAccess extends AccessFiles {
  access: Access;
  /** Closes the access, then removes the files. */
  close(): Promise<void>;
}

/**
 * Access as main.ts builds it from --token-auth-file and
 * --authorization-policy-file (and --audit-log-path into the directory),
 * over files written here.
 */
export async function fileAccess(
  options: {
    tokens?: string;
    policy?: string;
    /** No policy file: every authenticated caller may do everything. */
    noPolicy?: boolean;
    log?: Logger;
  } = {},
): Promise<TestAccess> {
  const files = await writeAccessFiles(options);
  try {
    const access = await createAccess({
      tokenAuthFile: files.tokenFile,
      tokenReview: false,
      anonymous: false,
      policyFile: options.noPolicy ? "" : files.policyFile,
      auditLogPath: files.auditLog,
      metricsRequireAuth: false,
    }, { log: options.log ?? silentLogger() });
    return {
      ...files,
      access,
      async close() {
        await access.close();
        await files.remove();
      },
    };
  } catch (error) {
    await files.remove();
    throw error;
  }
}

/** The lines of an audit log, parsed. */
export async function auditLines(
  path: string,
): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
}
