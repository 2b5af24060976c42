// @ts-check
/// <reference lib="dom" />
// Corral's console: clusters and compute templates for people who do not
// know Kubernetes, through Corral's own HTTP API (so through its sign-in,
// authorization and TLS). No framework and no build step: the page, these
// modules and the stylesheet are all it loads, as they are. The cluster
// list and a cluster's page follow WatchClusters (watch.js), and the jobs'
// pages WatchRayJobs (jobs_watch.js), so nothing of theirs polls.
//
// The modules: console.js starts it all; router.js picks the view from the
// hash; *_view.js are the views (with create_form.js and cluster_panels.js
// their parts); state.js holds what the console knows; watch.js keeps the
// clusters and jobs_watch.js the jobs, both through watch_stream.js;
// api.js makes every call to the API (api_*.js are the calls, by what
// they reach); connection.js says when Corral is unreachable; sign_in.js, sso.js and session.js the token; html.js and format.js
// build the page.
import { listenForSignIn, resumeSignIn, signIn } from "./sign_in.js";
import { redraw, redrawSoon, route } from "./router.js";
import { restartWatch, watchClusters } from "./watch.js";
import { onReachableAgain } from "./connection.js";

// Back from the issuer of a single sign-on: its token first.
if (await resumeSignIn()) signIn();
listenForSignIn(() => {
  restartWatch();
  route();
});
addEventListener("hashchange", () => route());
route();
watchClusters(redrawSoon);
onReachableAgain(restartWatch);
// Ages move on while nothing changes.
setInterval(redraw, 30_000);
