/**
 * Accept-Encoding (RFC 9110, 12.5.3): the content codings a client takes.
 * A coding it lists with q=0 it refuses; one it does not list it does not
 * take (identity aside, which every client takes unless it refuses it).
 */
export function acceptedEncodings(header: string | null): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? "").split(",")) {
    const [coding, ...params] = part.split(";").map((p) => p.trim());
    if (coding === "") continue;
    const q = params.find((p) => p.toLowerCase().startsWith("q="));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    accepted.add(coding.toLowerCase());
  }
  return accepted;
}
