/**
 * The kinds' loaders are the list of kinds, one loader per kind in the list's order, each giving
 * the very kind the list holds: the source form (`provider/terraform/kind-loaders.ts`) and the form the
 * provider bundle takes (`kind-loaders.lazy.ts`, each kind's module loaded on first use), run
 * from the build as the bundle runs it. Every kind's `configure` is the shared one, which the
 * Terraform door calls once for the kinds it has not loaded yet (`provider/terraform/server.ts`).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configure } from "../../../provider/core/resource";
import { KIND_LIST } from "../../../provider/kinds";
import { KIND_LOADERS, OWNER_KINDS } from "../../../provider/terraform/kind-loaders";

const DIST = join(__dirname, "..", "..", "..", "dist", "provider");

describe("KIND_LOADERS", () => {
  it("names every kind of the list, in its order, each loader giving the kind the list holds", () => {
    expect(Object.keys(KIND_LOADERS)).toEqual(KIND_LIST.map((k) => k.name));
    for (const kind of KIND_LIST) expect(KIND_LOADERS[kind.name]?.()).toBe(kind);
  });

  it("names the kinds that own others: those the owned kinds' owner marks name", () => {
    const nameOf = (type: string) => KIND_LIST.find((k) => k.resource.__pulumiType === type)?.name;
    expect(
      KIND_LIST.flatMap((k) => (k.resource.owner ? [[k.name, nameOf(k.resource.owner.type)]] : [])),
    ).toEqual([
      ["FlagDefinition", "Flag"],
      ["FlagDefinitions", "Flag"],
      ["SegmentKeys", "Segment"],
      ["RuleBasedSegmentDefinition", "RuleBasedSegment"],
    ]);
    expect(OWNER_KINDS).toEqual(["Flag", "Segment", "RuleBasedSegment"]);
  });

  it("in the bundle's form, loads only the kind asked for, the very kind the list holds", () => {
    const script = `
      const lazy = require(${JSON.stringify(join(DIST, "terraform", "kind-loaders.lazy.js"))});
      const flagModule = require.resolve(${JSON.stringify(join(DIST, "flags", "flag.js"))});
      const before = { flag: flagModule in require.cache, connector: Object.keys(require.cache).some((f) => f.endsWith("/platform/connector.js")) };
      const flag = lazy.KIND_LOADERS.Flag();
      const after = { flag: flagModule in require.cache, connector: Object.keys(require.cache).some((f) => f.endsWith("/platform/connector.js")) };
      const { KIND_LIST } = require(${JSON.stringify(join(DIST, "kinds.js"))});
      process.stdout.write(JSON.stringify({
        names: Object.keys(lazy.KIND_LOADERS),
        same: KIND_LIST.map((k) => lazy.KIND_LOADERS[k.name]() === k),
        flag: flag.name, before, after, owners: lazy.OWNER_KINDS,
      }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as {
      names: string[];
      same: boolean[];
      flag: string;
      before: { flag: boolean; connector: boolean };
      after: { flag: boolean; connector: boolean };
      owners: string[];
    };
    expect(out.names).toEqual(KIND_LIST.map((k) => k.name));
    expect(out.same).toEqual(KIND_LIST.map(() => true));
    expect(out.flag).toBe("Flag");
    expect(out.before).toEqual({ flag: false, connector: false });
    expect(out.after).toEqual({ flag: true, connector: false });
    expect(out.owners).toEqual(OWNER_KINDS);
  });

  it("every kind configures with the shared configure", () => {
    expect(KIND_LIST.filter((k) => k.impl.configure !== configure).map((k) => k.name)).toEqual([]);
  });
});
