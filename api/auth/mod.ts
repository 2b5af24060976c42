/**
 * Who may do what: authentication (token file, OIDC, TokenReview, client
 * certificates, anonymous) and the authorization policy, independent of the
 * transport. A transport calls RequestAuthenticator.authenticate() with a
 * request's credentials, then Policy.authorize() (and admitWorkload() for a
 * create) with the Identity it got; AuthenticationError (401) and
 * AuthorizationError (403) are ServiceErrors carrying a one-word reason.
 */

export {
  anonymousIdentity,
  bearerToken,
  createAuthenticator,
} from "./authenticate.ts";
export type {
  ChainOptions,
  Credentials,
  RequestAuthenticator,
} from "./authenticate.ts";
export { identityFromCertificate } from "./client_certificate.ts";
export type { PeerCertificateLike } from "./client_certificate.ts";
export {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  AuthenticationError,
  UNAUTHENTICATED_GROUP,
} from "./identity.ts";
export type {
  AuthenticationFailure,
  Authenticator,
  AuthenticatorName,
  Identity,
} from "./identity.ts";
export { oidcAuthenticator } from "./oidc.ts";
export type { OidcOptions } from "./oidc.ts";
export {
  admitWorkload,
  allowAll,
  AuthorizationError,
  forbidden,
  hostPathAllowed,
  imageAllowed,
  parsePolicy,
  PolicyError,
  policyFile,
  policyOf,
  RESOURCES,
  VERBS,
} from "./policy.ts";
export type {
  AuthorizationRequest,
  Decision,
  DenialReason,
  Policy,
  PolicyFile,
  PolicyFileOptions,
  Resource,
  Rule,
  Verb,
  Workload,
  WorkloadDecision,
} from "./policy.ts";
export { tokenFileAuthenticator } from "./token_file.ts";
export type { TokenFileAuthenticator, TokenFileOptions } from "./token_file.ts";
export { tokenReviewAuthenticator } from "./token_review.ts";
export type { TokenReviewOptions, TokenReviewPort } from "./token_review.ts";
