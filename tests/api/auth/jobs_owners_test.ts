/**
 * `owners: only` for jobs, on both transports, as for clusters: teammates
 * read each other's jobs, but only a job's owner (the identity recorded at
 * create) updates or deletes it; a caller granted `admin` on jobs deletes
 * the others' too.
 */
import assert from "node:assert/strict";
import { startCorral, TRANSPORTS } from "../../harness.ts";
import {
  bearer,
  fileAccess,
  person,
  tokenFileText,
} from "./access_fixtures.ts";
import { allow, groups, policyText } from "./policy_fixtures.ts";

const NS = "team-a";
const JO = person("jo", "jo", ["team-a"]);
const RITA = person("rita", "rita", ["team-a"]);
const LEAD = person("lead", "lead", ["team-a", "team-a-leads"]);

const POLICY = policyText([
  allow(groups("team-a"), ["team-a"], ["jobs"], ["*"], { owners: "only" }),
  allow(groups("team-a-leads"), ["team-a"], ["jobs"], ["admin"]),
]);

const SPEC = {
  headGroupSpec: { computeTemplate: "", image: "", engineStartParams: {} },
  workerGroupSpec: [{ groupName: "cpu", replicas: 1, engineStartParams: {} }],
};

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`Jobs (${transport}): owners: only lets teammates read a job but only its owner (or admin) update or delete it`, async () => {
    const access = await fileAccess({
      tokens: tokenFileText([JO, RITA, LEAD]),
      policy: POLICY,
    });
    const corral = await startCorral({ access: access.access });
    const call = (
      method: string,
      request: Record<string, unknown>,
      who: typeof JO,
    ) =>
      via(corral, `proto.RayJobService/${method}`, request, {
        authorization: bearer(who),
      });
    const suspend = (name: string, who: typeof JO) =>
      call("UpdateRayJob", {
        namespace: NS,
        name,
        job: { suspend: true },
      }, who);
    const remove = (name: string, who: typeof JO) =>
      call("DeleteRayJob", { namespace: NS, name }, who);
    try {
      for (const name of ["jo-a", "jo-b"]) {
        const created = await call("CreateRayJob", {
          namespace: NS,
          job: {
            name,
            version: "2.9.0",
            entrypoint: "python main.py",
            shutdownAfterJobFinishes: true,
            clusterSpec: SPEC,
          },
        }, JO);
        assert.equal(created.code, 0, created.message);
        assert.equal(created.result!.user, "jo");
      }

      const read = await call(
        "GetRayJob",
        { namespace: NS, name: "jo-a" },
        RITA,
      );
      assert.equal(read.code, 0, read.message);

      const update = await suspend("jo-a", RITA);
      assert.equal(update.code, 7, update.message);
      assert.equal(
        update.message,
        'Cannot update job "team-a/jo-a": user "rita" may not update a job of "jo": only its owner or a caller granted "admin" may',
      );
      const deletion = await remove("jo-a", RITA);
      assert.equal(deletion.code, 7, deletion.message);
      assert.match(deletion.message, /may not delete a job of "jo"/);
      const still = await call(
        "GetRayJob",
        { namespace: NS, name: "jo-a" },
        JO,
      );
      assert.equal(still.code, 0, still.message);
      assert.equal(still.result!.suspend, false);

      const own = await suspend("jo-a", JO);
      assert.equal(own.code, 0, own.message);
      assert.equal(own.result!.suspend, true);
      const ownDeletion = await remove("jo-a", JO);
      assert.equal(ownDeletion.code, 0, ownDeletion.message);

      const byLead = await remove("jo-b", LEAD);
      assert.equal(byLead.code, 0, byLead.message);
    } finally {
      await corral.close();
      await access.close();
    }
  });
}
