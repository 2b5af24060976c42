/**
 * Whether a value is one plain word to bash: a cluster's start parameters
 * land unquoted on the operator's `bash -lc` command line
 * (cluster_validation.ts refuses those that are not).
 */

/**
 * Characters a value may hold outside quotes: none the shell gives a
 * meaning to (no white space, `; | & < > ( ) $ \` \\ ' " * ? [ ] { } ~ # !`).
 */
const PLAIN_WORD_CHARACTER = /[A-Za-z0-9_\-.,:\/=+@%^]/;
/** The pod IP variable the service sets on every container (`$MY_POD_IP`). */
const POD_IP_REFERENCE = /^\$(?:MY_POD_IP\b|\{MY_POD_IP\})/;

/**
 * Why bash would read `value` as more than plain text, or undefined.
 *
 * The KubeRay operator (convertParamMap in its pod builder) writes each
 * start parameter as ` --key=value ` into the ray start command, which it
 * runs with `bash -lc`; the value is not quoted or escaped. So a value is
 * shell source, and one a caller sends could end the command (`;`, `&`,
 * `|`, newline), run another (`$(...)`, backquotes), redirect (`<`, `>`),
 * glob, or split into more arguments. Corral accepts a value only when
 * bash reads it, with nothing run or expanded, as part of the one word
 * `--key=value`:
 *
 * - outside quotes, PLAIN_WORD_CHARACTER only;
 * - `"double-quoted"` text without `$`, backquotes or control characters
 *   (a backslash escapes the next character): KubeRay's documentation
 *   passes custom resources so, `"{\"GPU\": 1}"`;
 * - `'single-quoted'` text without control characters;
 * - `$MY_POD_IP` or `${MY_POD_IP}`, in quotes or not: the pod's IP, which
 *   the service sets on every container for `node-ip-address`.
 *
 * Objects KubeRay or kubectl wrote may hold other values; they are read
 * back as they are, only what Corral writes is refused.
 */
export function shellWordProblem(value: string): string | undefined {
  // deno-lint-ignore no-control-regex -- control characters are the point
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    return "control characters such as newline or tab are not allowed";
  }
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === "$") {
      const reference = POD_IP_REFERENCE.exec(value.slice(i));
      if (reference === null) return '"$" is allowed only in $MY_POD_IP';
      i += reference[0].length - 1;
      continue;
    }
    if (c === "`") return "backquotes are not allowed";
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\") i++;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
    } else if (!PLAIN_WORD_CHARACTER.test(c)) {
      return `${JSON.stringify(c)} is allowed only in quotes`;
    }
  }
  return quote === undefined ? undefined : `its ${quote} quote is not closed`;
}
