/**
 * YAML is read within bounds everywhere (issue 23, item 3): a billion-laughs document of nested
 * aliases, or a text over 1 MiB, is
 * - a check failure naming the input that holds it (`yaml`, an input set's `pipelineYaml`) for a
 *   Service, an InputSet and a Pipeline, directly and through the real gRPC host, with no request;
 * - a 400 `INVALID_YAML_ERROR` of the emulator for a service, an input set and a pipeline (never a
 *   500), with the platform's error body saying which bound the text broke;
 * - a `ValidationError` of the SDK's platform client before any request.
 * All of them read through the one bounded reading, `sdk/core/yaml.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl as inputSet, inputSetProviderText } from "../../provider/platform/input-set";
import { impl as pipeline, pipelineProviderText } from "../../provider/platform/pipeline";
import { impl as service, serviceProviderText } from "../../provider/platform/service";
import { ValidationError } from "../../sdk";
import {
  inProject,
  pipelineQuery,
  projectQuery,
  serviceYaml,
  useProjectPlatform,
} from "../emulator/platform/entity-fixtures";
import { errorBody, simplePipeline } from "../emulator/platform/harness";
import { type Driver, MODES, type Mode } from "../provider/harness";
import { startTestbed, type Testbed } from "../provider/testbed";
import { aliasBomb } from "../sdk/helpers/yaml-bomb";

const ALIASES =
  "expands more than 100 aliases; YAML is limited to 100 alias expansions (a guard against alias bombs)";
const SIZE = "YAML is limited to 1048576 bytes (1 MiB) of UTF-8";

/** Each entity's YAML with a bomb under a key of its root mapping. */
const bombed = {
  service: `service:\n  identifier: s\n  name: s\n  bomb:\n${aliasBomb(4)}`,
  inputSet: `inputSet:\n  identifier: i\n  name: i\n  orgIdentifier: default\n  projectIdentifier: proj\n  pipeline:\n    identifier: pipe\n  bomb:\n${aliasBomb(4)}`,
  pipeline: simplePipeline("bombed", "proj", "default", `  bomb:\n${aliasBomb(4)}`),
};

/** Each entity's YAML made longer than 1 MiB by a comment: valid YAML, only too large. */
const padding = `# ${"x".repeat(1024 * 1024)}\n`;
const oversize = {
  service: `${serviceYaml("big")}${padding}`,
  inputSet: `inputSet:\n  identifier: big\n  name: big\n  orgIdentifier: default\n  projectIdentifier: proj\n  pipeline:\n    identifier: pipe\n${padding}`,
  pipeline: `${simplePipeline("big", "proj")}${padding}`,
};
const sizeOf = (text: string) => `at least ${text.length} bytes`;

describe("check refuses an alias bomb and an oversize YAML, naming the field, with no request", () => {
  let bed: Testbed;
  const drivers = {} as Record<"service" | "inputSet" | "pipeline", Record<Mode, Driver>>;
  beforeAll(async () => {
    bed = await startTestbed();
    drivers.service = await bed.drivers(service, serviceProviderText);
    drivers.inputSet = await bed.drivers(inputSet, inputSetProviderText);
    drivers.pipeline = await bed.drivers(pipeline, pipelineProviderText);
  });
  afterAll(async () => {
    await bed?.stop();
  });

  const scope = { org: "default", project: "proj" };
  const child = { ...scope, pipelineIdentifier: "pipe", identifier: "i", name: "i" };

  describe.each(MODES)("%s", (mode) => {
    it.each([
      ["Service", "service", "yaml", { ...scope, identifier: "s", name: "s", yaml: bombed.service }],
      ["InputSet", "inputSet", "yaml", { ...child, yaml: bombed.inputSet }],
      ["InputSet", "inputSet", "pipelineYaml", { ...child, values: {}, pipelineYaml: bombed.pipeline }],
      ["Pipeline", "pipeline", "yaml", { project: "proj", yaml: bombed.pipeline }],
    ] as const)("%s: a bomb in %s's %s", async (_kind, kind, field, inputs) => {
      bed.reset();
      const { failures } = await drivers[kind][mode].check({}, inputs);
      expect(failures).toEqual([{ property: field, reason: `${field} ${ALIASES}` }]);
      expect(bed.sent()).toEqual([]);
    });

    it.each([
      ["Service", "service", "yaml", { ...scope, identifier: "big", name: "big", yaml: oversize.service }],
      ["InputSet", "inputSet", "yaml", { ...child, identifier: "big", name: "big", yaml: oversize.inputSet }],
      ["InputSet", "inputSet", "pipelineYaml", { ...child, values: {}, pipelineYaml: oversize.pipeline }],
      ["Pipeline", "pipeline", "yaml", { project: "proj", yaml: oversize.pipeline }],
    ] as const)("%s: an oversize %s's %s", async (_kind, kind, field, inputs) => {
      bed.reset();
      const text = (inputs as Record<string, string>)[field]!;
      const { failures } = await drivers[kind][mode].check({}, inputs);
      expect(failures).toEqual([{ property: field, reason: `${field} is ${sizeOf(text)}; ${SIZE}` }]);
      expect(bed.sent()).toEqual([]);
    });
  });

  it("the SDK's platform client refuses a bomb before sending it", async () => {
    bed.reset();
    const refused = await bed.platform.pipelines.create(bombed.pipeline, scope).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).fieldErrors).toEqual([
      { field: "yaml", message: `the YAML ${ALIASES}` },
    ]);
    const child = await bed.platform.inputSets.create(bombed.inputSet).catch((e: unknown) => e);
    expect(child).toBeInstanceOf(ValidationError);
    expect((child as ValidationError).fieldErrors).toEqual([
      { field: "yaml", message: `the YAML ${ALIASES}` },
    ]);
    expect(bed.sent()).toEqual([]);
  });
});

describe("the emulator answers an alias bomb and an oversize YAML with 400 INVALID_YAML_ERROR", () => {
  const p = useProjectPlatform();
  const SERVICES = "/ng/api/servicesV2";
  const SETS = "/pipeline/api/inputSets";
  const PIPELINES = "/pipeline/api/pipelines/v2";

  it.each([
    ["bomb", bombed, `Invalid yaml: the YAML ${ALIASES}`],
    ["oversize", oversize, undefined],
  ] as const)("a service, an input set and a pipeline (%s)", async (_label, texts, message) => {
    const expected = (text: string) => message ?? `Invalid yaml: the YAML is ${sizeOf(text)}; ${SIZE}`;
    const commits = p().commits;
    const svc = await p().call("POST", SERVICES, {
      json: { identifier: "s", name: "s", ...inProject, yaml: texts.service },
    });
    expect([svc.status, svc.body]).toEqual([400, errorBody("INVALID_YAML_ERROR", expected(texts.service))]);
    const set = await p().call("POST", SETS, {
      query: pipelineQuery("pipelineIdentifier"),
      yaml: texts.inputSet,
    });
    expect([set.status, set.body]).toEqual([400, errorBody("INVALID_YAML_ERROR", expected(texts.inputSet))]);
    const pipe = await p().call("POST", PIPELINES, { query: projectQuery, yaml: texts.pipeline });
    expect([pipe.status, pipe.body]).toEqual([
      400,
      errorBody("INVALID_YAML_ERROR", expected(texts.pipeline)),
    ]);
    expect(p().commits).toBe(commits);
  });
});
