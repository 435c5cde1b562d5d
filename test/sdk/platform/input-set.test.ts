/** platform.inputSets against the emulator: YAML bodies naming their scope and pipeline, `If-Match`, paging. */
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { collect, createPipeline, usePlatformBed } from "./entity-bed";

const bed = usePlatformBed();
const at = { org: "default", project: "payments", pipeline: "build" };
const inputSet = (identifier: string, script: string) => ({
  inputSet: {
    name: identifier,
    identifier,
    orgIdentifier: "default",
    projectIdentifier: "payments",
    pipeline: { identifier: "build", stages: [{ stage: { identifier: "build", spec: { script } } }] },
  },
});

describe("platform.inputSets", () => {
  it("creates from an object, reads with its version, updates guarded by it, lists and deletes", async () => {
    await createPipeline(bed.platform, "build");
    bed.reset();
    const created = await bed.platform.inputSets.create(inputSet("nightly", "echo 1"));
    expect(created).toEqual({
      accountId: bed.emu.accountId,
      orgIdentifier: "default",
      projectIdentifier: "payments",
      pipelineIdentifier: "build",
      identifier: "nightly",
      inputSetYaml: stringify(inputSet("nightly", "echo 1")),
      name: "nightly",
      description: "",
      tags: {},
      isOutdated: false,
      isErrorResponse: false,
      version: 0,
    });
    expect(await bed.platform.inputSets.get("nightly", at)).toEqual(created);
    const text = stringify(inputSet("nightly", "echo 2"));
    expect((await bed.platform.inputSets.update(text, { ifMatch: 0 })).inputSetYaml).toBe(text);
    await expect(
      bed.platform.inputSets.update(inputSet("nightly", "echo 3"), { ifMatch: 0 }),
    ).rejects.toMatchObject({ status: 400, code: "OPTIMISTIC_LOCKING_EXCEPTION" });
    await bed.platform.inputSets.create(inputSet("weekly", "echo w"));
    const listed = await collect(bed.platform.inputSets.list({ ...at, pageSize: 1 }));
    // Newest first, as the emulator lists.
    expect(listed.map((s) => [s.identifier, s.version])).toEqual([
      ["weekly", 0],
      ["nightly", 1],
    ]);
    expect(await bed.platform.inputSets.delete("weekly", at, { ifMatch: 0 })).toBe(true);
    const q = `accountIdentifier=${bed.emu.accountId}&orgIdentifier=default&projectIdentifier=payments&pipelineIdentifier=build`;
    expect(bed.seen()).toEqual([
      `POST /pipeline/api/inputSets?${q} 200`,
      `GET /pipeline/api/inputSets/nightly?${q} 200`,
      `PUT /pipeline/api/inputSets/nightly?${q} 200`,
      `PUT /pipeline/api/inputSets/nightly?${q} 400`,
      `POST /pipeline/api/inputSets?${q} 200`,
      `GET /pipeline/api/inputSets?${q}&pageIndex=0&pageSize=1 200`,
      `GET /pipeline/api/inputSets?${q}&pageIndex=1&pageSize=1 200`,
      `DELETE /pipeline/api/inputSets/weekly?${q} 200`,
    ]);
    expect(bed.rec.sent.map((s) => s.headers["content-type"] ?? "-")).toEqual([
      "application/yaml",
      "-",
      "application/yaml",
      "application/yaml",
      "application/yaml",
      "-",
      "-",
      "-",
    ]);
  });

  it("refuses YAML without the pipeline before any request", async () => {
    await expect(
      bed.platform.inputSets.create("inputSet:\n  name: x\n  identifier: x\n"),
    ).rejects.toMatchObject({
      kind: "validation",
      fieldErrors: [{ field: "yaml.inputSet.pipeline", message: expect.any(String) }],
    });
    expect(bed.seen()).toEqual([]);
  });
});
