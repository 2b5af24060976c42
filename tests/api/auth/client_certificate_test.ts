import assert from "node:assert/strict";
import { identityFromCertificate } from "../../../api/auth/client_certificate.ts";
import type { PeerCertificateLike } from "../../../api/auth/client_certificate.ts";

Deno.test("identityFromCertificate() reads CN as the user and every O as a group", async (t) => {
  const cases: [
    string,
    PeerCertificateLike | null | undefined,
    { user: string; groups: string[] } | undefined,
  ][] = [
    ["CN and one O", { subject: { CN: "alice", O: "team-a" } }, {
      user: "alice",
      groups: ["team-a"],
    }],
    ["CN and several O", {
      subject: { CN: "alice", O: ["team-a", "system:masters"] },
    }, {
      user: "alice",
      groups: ["team-a", "system:masters"],
    }],
    ["CN without O", { subject: { CN: "alice" } }, {
      user: "alice",
      groups: [],
    }],
    ["several CN: the last, as Go's pkix.Name", {
      subject: { CN: ["first", "alice"] },
    }, { user: "alice", groups: [] }],
    [
      "empty O values dropped",
      { subject: { CN: "alice", O: ["", "team-a"] } },
      { user: "alice", groups: ["team-a"] },
    ],
    ["no CN", { subject: { O: "team-a" } }, undefined],
    ["empty CN", { subject: { CN: "", O: "team-a" } }, undefined],
    ["empty CN list", { subject: { CN: [] } }, undefined],
    ["empty subject", { subject: {} }, undefined],
    ["null subject", { subject: null }, undefined],
    ["no certificate (node's empty object)", {}, undefined],
    ["null", null, undefined],
    ["undefined", undefined, undefined],
  ];
  for (const [name, certificate, want] of cases) {
    await t.step(name, () => {
      const got = identityFromCertificate(certificate);
      assert.deepEqual(
        got,
        want && { ...want, authenticator: "client-certificate" },
      );
    });
  }
});
