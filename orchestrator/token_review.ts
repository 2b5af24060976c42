/**
 * The Kubernetes API's TokenReview, for --authentication-token-review:
 * Corral asks the API server who a service-account token belongs to. Its
 * service account needs `create` on `tokenreviews` (deploy/).
 */
import { AuthenticationV1Api, type KubeConfig } from "@kubernetes/client-node";

export type TokenReviewClient = Pick<AuthenticationV1Api, "createTokenReview">;

export function tokenReviewClient(kubeConfig: KubeConfig): TokenReviewClient {
  return kubeConfig.makeApiClient(AuthenticationV1Api);
}
