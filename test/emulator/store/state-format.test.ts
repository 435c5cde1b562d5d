/**
 * The state file's format across the store's split by domain (`emulator/store/index.ts`): a file
 * written before it (`state-format-1.json`, made by the emulator of that time with one object of
 * each part it then called `catalog`: a flag set named by a definition, an attribute, an identity,
 * a large segment with uploaded members and its change request, a rule-based segment with an
 * exclusion, an environment's change permissions, a restriction) loads into the domain parts and
 * is written back exactly as it was.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Store } from "../../../emulator/store";

const fixture = join(__dirname, "state-format-1.json");
const dir = mkdtempSync(join(tmpdir(), "flagstack-format-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("state file format 1", () => {
  it("loads a file written before the split into the domain parts and writes it back unchanged", async () => {
    const statePath = join(dir, "state.json");
    copyFileSync(fixture, statePath);
    const written = JSON.parse(readFileSync(fixture, "utf8"));
    const store = await Store.open({ accountId: "acc_format1", statePath });
    try {
      const staging = store.environments.list().find((e) => e.name === "Staging");
      const production = store.environments.list().find((e) => e.name === "Production");
      const activation = store.largeSegments.list()[0];
      expect({
        flagSets: store.flagSets.list().map((f) => f.name),
        namedBy: store.definitions.dump().definitions.map((d) => d.doc.flagSets?.map((s) => s.id)),
        attributes: store.attributes.list().map((a) => [a.id, a.suggestedValues]),
        identities: store.identities.list().map((i) => [i.key, i.values]),
        members:
          activation && production && store.largeSegments.activation(production.id, activation.id)?.members,
        excluded: store.ruleBasedSegments.activeIn(production?.id ?? "").map((a) => a.excludedKeys),
        requests: store.changeRequests.list().map((r) => [r.id, r.status, r.upload?.keys]),
        gated: [staging, production].map((e) => store.changePermissions.approvalsRequired(e?.id ?? "")),
        restricted: store.restrictions.list().map((r) => [r.resourceType, r.view]),
      }).toEqual({
        flagSets: ["checkout"],
        namedBy: [[written.catalog.flagSets[0].id]],
        attributes: [["plan", ["free", "pro"]]],
        identities: [["alice", { plan: "pro" }]],
        members: ["m1", "m2"],
        excluded: [["bob"]],
        requests: [["1", "PUBLISHED", ["m1", "m2"]]],
        gated: [true, false],
        restricted: [["workspace", true]],
      });
      expect(store.toFile()).toEqual(written);
    } finally {
      await store.close();
    }
  });
});
