/** What every request handler reads and changes: the server's state. */

import type { Logger } from "../domain/log.ts";
import type { ObjectStore } from "./store.ts";
import type { IssuedToken } from "./token_request.ts";
import type { ResourceType } from "./types.ts";

export interface State {
  /** The served resource types; CRDs add and remove entries. */
  resources: ResourceType[];
  /** Entries a CRD replaced, by group/version/plural, restored on its delete. */
  shadowed: Map<string, ResourceType>;
  store: ObjectStore;
  implicitNamespaces: boolean;
  maxBodyBytes: number;
  bookmarkIntervalMs: number;
  /** Open watches, ended by close() (and by deleting their CRD). */
  watches: Set<{ resource: ResourceType; end(): void }>;
  logger?: Logger;
  namespaceResource?: ResourceType;
  /** The service-account tokens issued, by token (token_request.ts). */
  tokens: Map<string, IssuedToken>;
  /** The clock of token lifetimes and Events' expiry, in ms since the epoch. */
  now: () => number;
}

/** What one request carries beside its route: warnings and options. */
export interface RequestContext {
  /** Texts of the `Warning` headers of the answer. */
  warnings: string[];
  fieldValidation: "Ignore" | "Warn" | "Strict";
}
