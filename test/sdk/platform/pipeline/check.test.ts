/**
 * The check of raw pipeline YAML (sdk/platform/pipeline/check.ts): the 1 MiB bound before
 * parsing, the strict parse, and the service's rules with messages that name the field; and the
 * `Pipeline` resource's `check`, which uses it.
 */
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { impl } from "../../../../provider/platform/pipeline";
import {
  PIPELINE_YAML_MAX_BYTES,
  pipelineYamlProblems,
  renderPipelineYaml,
} from "../../../../sdk/platform/pipeline";
import { hello } from "../../../provider/fixtures/pipelines";

const scope = { org: "default", project: "payments" };
const helloYaml = renderPipelineYaml(hello, scope);
const STAGE = ["pipeline", "stages", 0, "stage"];
const STEP = [...STAGE, "spec", "execution", "steps", 0, "step"];

/** The hello pipeline as plain data, edited by `edit`, as YAML. */
// biome-ignore lint/suspicious/noExplicitAny: free-form YAML tree.
function edited(edit: (p: any) => void): string {
  const doc = YAML.parse(helloYaml);
  edit(doc.pipeline);
  return YAML.stringify(doc);
}

describe("pipelineYamlProblems", () => {
  it("finds nothing in YAML the service accepts, templates and other step types included", () => {
    expect(pipelineYamlProblems(helloYaml)).toEqual([]);
    expect(
      pipelineYamlProblems(
        edited((p) => {
          delete p.orgIdentifier;
          delete p.projectIdentifier;
          p.stages.push({ stage: { name: "T", identifier: "t", template: { templateRef: "account.tpl" } } });
          p.stages[0].stage.spec.execution.steps.push({
            stepGroup: {
              name: "G",
              identifier: "g",
              steps: [{ step: { name: "Wait", identifier: "wait", type: "Wait", spec: { duration: "1m" } } }],
            },
          });
        }),
      ),
    ).toEqual([]);
  });

  // biome-ignore lint/suspicious/noExplicitAny: free-form YAML tree.
  it.each<[string, (p: any) => void, { path: (string | number)[]; message: string }[]]>([
    [
      "a stage named build/test",
      (p) => (p.stages[0].stage.name = "build/test"),
      [
        {
          path: [...STAGE, "name"],
          message:
            'name can only contain alphanumeric, space, hyphen, underscore and dot characters; "/" is not allowed.',
        },
      ],
    ],
    [
      "a stage identifier with a slash",
      (p) => (p.stages[0].stage.identifier = "build/test"),
      [
        {
          path: [...STAGE, "identifier"],
          message:
            "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $",
        },
      ],
    ],
    [
      "a reserved step identifier",
      (p) => (p.stages[0].stage.spec.execution.steps[0].step.identifier = "status"),
      [{ path: [...STEP, "identifier"], message: "status is a keyword, so cannot be used" }],
    ],
    [
      "a zero timeout",
      (p) => (p.stages[0].stage.spec.execution.steps[0].step.timeout = "0m"),
      [
        {
          path: [...STEP, "timeout"],
          message: '"0m" must be a duration such as 10m, 1h30m, 30s or 1d, or a <+...> expression',
        },
      ],
    ],
    [
      "a numeric timeout",
      (p) => (p.stages[0].stage.spec.execution.steps[0].step.timeout = 10),
      [{ path: [...STEP, "timeout"], message: "timeout must be a string, not an integer" }],
    ],
    [
      "an unknown shell",
      (p) => (p.stages[0].stage.spec.execution.steps[0].step.spec.shell = "Zsh"),
      [{ path: [...STEP, "spec", "shell"], message: "shell must be one of Bash, PowerShell" }],
    ],
    [
      "no stages",
      (p) => (p.stages = []),
      [{ path: ["pipeline", "stages"], message: "stages needs at least 1 entry" }],
    ],
    ["a missing name", (p) => delete p.name, [{ path: ["pipeline", "name"], message: "name is required" }]],
    [
      "an entry with neither stage nor parallel",
      (p) => (p.stages[0] = { step: {} }),
      [{ path: ["pipeline", "stages", 0], message: "each entry needs exactly one of stage, parallel" }],
    ],
    [
      "two stages with one identifier",
      (p) => p.stages.push({ parallel: [structuredClone(p.stages[0])] }),
      [
        {
          path: ["pipeline", "stages", 1, "parallel", 0, "stage", "identifier"],
          message: "stage identifier say_hello is used more than once in the pipeline",
        },
      ],
    ],
    [
      "an organization that is not a string",
      (p) => (p.orgIdentifier = 7),
      [{ path: ["pipeline", "orgIdentifier"], message: "orgIdentifier must be a string, not an integer" }],
    ],
    [
      "a runtime-input identifier",
      (p) => (p.identifier = "<+input>"),
      [
        {
          path: ["pipeline", "identifier"],
          message: "the pipeline identifier cannot be a runtime input (ref §6.2)",
        },
        {
          path: ["pipeline", "identifier"],
          message:
            "identifier can be 128 characters long and can only contain alphanumeric, underscore and $ characters, and not start with a number or $",
        },
      ],
    ],
  ])("names the field of %s", (_label, edit, problems) => {
    expect(pipelineYamlProblems(edited(edit))).toEqual(problems);
  });

  it.each<[string, string, { path: (string | number)[]; message: string }[]]>([
    [
      "text that is not YAML",
      "pipeline: [",
      [{ path: [], message: expect.stringMatching(/^invalid YAML: /) }],
    ],
    [
      "a duplicate key",
      "pipeline:\n  name: a\n  name: b\n",
      [{ path: [], message: "invalid YAML: Map keys must be unique at line 3, column 3:" }],
    ],
    [
      "no pipeline mapping",
      "stages: []\n",
      [{ path: ["pipeline"], message: "the YAML needs a top-level pipeline mapping" }],
    ],
    [
      "a pipeline that is a list",
      "pipeline: []\n",
      [{ path: ["pipeline"], message: "the YAML needs a top-level pipeline mapping" }],
    ],
  ])("refuses %s", (_label, text, problems) => {
    expect(pipelineYamlProblems(text)).toEqual(problems);
  });
});

describe("the size bound", () => {
  /** Valid YAML of exactly `bytes` bytes: the hello pipeline and a comment of `fill` characters. */
  const sized = (bytes: number, fill = "x") => {
    const head = `${helloYaml}# `;
    const width = Buffer.byteLength(fill);
    const count = Math.floor((bytes - Buffer.byteLength(head)) / width);
    const text = `${head}${fill.repeat(count)}${"x".repeat(bytes - Buffer.byteLength(head) - count * width)}`;
    expect(Buffer.byteLength(text)).toBe(bytes);
    return text;
  };

  it("reads YAML of exactly 1 MiB, and refuses one byte more, naming the limit", () => {
    expect(pipelineYamlProblems(sized(PIPELINE_YAML_MAX_BYTES))).toEqual([]);
    expect(pipelineYamlProblems(sized(PIPELINE_YAML_MAX_BYTES + 1))).toEqual([
      {
        path: [],
        message: "yaml is at least 1048577 bytes; YAML is limited to 1048576 bytes (1 MiB) of UTF-8",
      },
    ]);
  });

  it("counts UTF-8 bytes, not characters", () => {
    const text = sized(PIPELINE_YAML_MAX_BYTES + 2, "é");
    expect(text.length).toBeLessThan(PIPELINE_YAML_MAX_BYTES);
    expect(pipelineYamlProblems(text)).toEqual([
      {
        path: [],
        message: "yaml is 1048578 bytes; YAML is limited to 1048576 bytes (1 MiB) of UTF-8",
      },
    ]);
  });

  it("refuses a 10 MB pipeline in the Pipeline resource's check quickly, with bounded memory", async () => {
    // A real-looking pipeline: the hello pipeline with a 10 MB script.
    const script = "echo step\n".repeat(1_048_576);
    const yaml = edited(
      (p) => (p.stages[0].stage.spec.execution.steps[0].step.spec.source.spec.script = script),
    );
    expect(yaml.length).toBeGreaterThan(10_000_000);
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const result = await impl.check({}, { project: "payments", yaml });
    const elapsed = performance.now() - started;
    const grown = process.memoryUsage().heapUsed - heapBefore;
    expect(result.failures).toEqual([
      {
        property: "yaml",
        reason: `yaml is at least ${yaml.length} bytes; YAML is limited to 1048576 bytes (1 MiB) of UTF-8`,
      },
    ]);
    // Parsing it took 3-4 s and 860 MB; the bound is read from the string's length alone.
    expect(elapsed).toBeLessThan(100);
    expect(grown).toBeLessThan(8 * 1_048_576);
  });
});
