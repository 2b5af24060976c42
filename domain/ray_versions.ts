/**
 * The Ray versions Corral knows, newest first: those of the images
 * KubeRay's releases that Corral follows were shipped and tested with
 * (their sample RayClusters' rayVersion). The one place they are listed:
 * GET /version answers them (`rayVersions`), the console's create form and
 * the command line default a new cluster to the newest, and validation
 * names it when neither a version nor an image is given. Any other
 * version still goes: a version is a label and an image tag, not a choice
 * from this list.
 */
export const RAY_VERSIONS: readonly string[] = Object.freeze([
  "2.52.0", // KubeRay 1.6, 1.7
  "2.46.0", // 1.4, 1.5
  "2.41.0", // 1.3
  "2.34.0", // 1.2
  "2.9.0", // 1.1
  "2.7.0", // 1.0
]);

/** The version a cluster gets when nobody names one. */
export const NEWEST_RAY_VERSION: string = RAY_VERSIONS[0];
