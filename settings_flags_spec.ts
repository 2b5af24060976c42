/** What the flag table says of each flag, and the modes a default may differ by. */
export type Mode = "kubernetes" | "embedded";
export const MODES: readonly Mode[] = ["kubernetes", "embedded"];

export interface Spec {
  env: string;
  /** A default per mode where dev mode differs. */
  default: string | Record<Mode, string>;
  help: string;
  /** The value's name in --help. */
  value: string;
  multiple?: true;
  /** A switch: `--flag` is `--flag=true`; its variable is true or false. */
  boolean?: true;
}
