/**
 * What the resources saved for one pipeline of a project share (an `InputSet`, a `Trigger`): their
 * identity inputs, their import id `<org>/<project>/<pipeline>/<identifier>`, the entity mapping
 * of their YAML, YAML compared by meaning, and the check of values against the pipeline's runtime
 * inputs (`<+input>`).
 * @module
 */
import { z } from "zod";
import { loadYaml, yamlDocument } from "../../sdk/core/yaml";
import { isRuntimeInputText } from "../../sdk/platform/pipeline";
import { entityName, Identifier, Tags } from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import type { InputProblem, JsonPath } from "./check";
import { type GuardedUpdateSpec, guardedUpdate } from "./guard";
import { writeIfMatch } from "./if-match";
import { createOrAdopt, deleteIdempotent, readOrGone } from "./lifecycle";
import { sameYaml } from "./ng-entity";
import { AdoptInput, OrgInput, splitId } from "./platform-common";
import { plain } from "./resource";

/** The identity inputs of a pipeline's child; spread into a resource's inputs schema. */
export const pipelineChildShape = {
  /** Organization; `default` when absent. Replaces when changed. */
  org: OrgInput,
  /** Project. Replaces when changed. */
  project: Identifier,
  /** The pipeline's identifier (a `Pipeline`'s `identifier` output). Replaces when changed. */
  pipelineIdentifier: Identifier,
  /** Identifier, unique for the pipeline. Replaces when changed. */
  identifier: Identifier,
  /** Display name. */
  name: entityName(128),
  /** Description, at most 1024 characters. Default: empty. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** Key/value tags; a key-only tag has the value `""`. */
  tags: Tags.default({}),
  /** Take over an existing one with this identifier instead of failing on the duplicate. */
  adopt: AdoptInput,
};

/** The inputs whose change replaces a pipeline's child. */
export const PIPELINE_CHILD_REPLACE_ON_CHANGE = [
  "org",
  "project",
  "pipelineIdentifier",
  "identifier",
] as const;

/** Where a pipeline's child lives. */
export interface PipelineChildKey {
  org: string;
  project: string;
  pipelineIdentifier: string;
  identifier: string;
}

/** The resource id and import id: `<org>/<project>/<pipeline>/<identifier>`. */
export const pipelineChildId = (k: PipelineChildKey): string =>
  `${k.org}/${k.project}/${k.pipelineIdentifier}/${k.identifier}`;

/** The key of a pipeline's child from its recorded outputs, or (an import) from its id. */
export function pipelineChildKey(id: string, prev: Partial<PipelineChildKey> | undefined): PipelineChildKey {
  if (prev?.identifier && prev.project && prev.pipelineIdentifier) {
    return {
      org: prev.org ?? "default",
      project: prev.project,
      pipelineIdentifier: prev.pipelineIdentifier,
      identifier: prev.identifier,
    };
  }
  const [org, project, pipelineIdentifier, identifier] = splitId(
    id,
    4,
    "<org>/<project>/<pipeline>/<identifier>",
  ) as [string, string, string, string];
  return { org, project, pipelineIdentifier, identifier };
}

/** The scope of the SDK's calls. */
export const childScope = (k: PipelineChildKey) => ({
  org: k.org,
  project: k.project,
  pipeline: k.pipelineIdentifier,
});

/** The object, for messages: `input set "x" of pipeline default/payments/deploy`. */
export const describeChild = (noun: string, k: PipelineChildKey): string =>
  `${noun} "${k.identifier}" of pipeline ${k.org}/${k.project}/${k.pipelineIdentifier}`;

/** What the YAML's entity mapping must say: the resource's own fields. */
export const childHead = (k: PipelineChildKey & { name: string }) => ({
  identifier: k.identifier,
  name: k.name,
  orgIdentifier: k.org,
  projectIdentifier: k.project,
});

/**
 * The `root:` mapping of a YAML text, read within the SDK's bounds (`sdk/core/yaml.ts`: size,
 * aliases, duplicate keys refused), or why there is none; a broken bound names `field`, the input
 * holding the text.
 */
export function yamlMapping(text: string, root: string, field = "yaml"): Record<string, unknown> | string {
  const read = loadYaml(text);
  if (!read.ok) return read.error.reason === "syntax" ? read.error.message : read.error.about(field);
  const value = read.value as Record<string, unknown> | null;
  const m = value?.[root];
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    return `the YAML needs a top-level ${root} mapping`;
  }
  return m as Record<string, unknown>;
}

/**
 * The problems of raw YAML naming another entity than the resource: each of `wanted`'s keys the
 * mapping names must have the wanted value (a key left out is filled in before sending).
 */
export function mismatchProblems(
  mapping: Record<string, unknown>,
  wanted: Record<string, unknown>,
  root: string,
  field: string,
): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    if (mapping[key] !== undefined && mapping[key] !== value) {
      problems.push({
        path: [field],
        message: `${root}.${key} is ${JSON.stringify(mapping[key])} but the resource says ${JSON.stringify(value)}; they must match (or leave it out of the YAML)`,
      });
    }
  }
  return problems;
}

/** Raw YAML with the wanted fields it leaves out filled in under `root`. */
export function fillYaml(text: string, root: string, wanted: Record<string, unknown>): string {
  const doc = yamlDocument(text);
  for (const [key, value] of Object.entries(wanted)) {
    if (value !== undefined && !doc.hasIn([root, key])) doc.setIn([root, key], value);
  }
  return doc.toString({ lineWidth: 0 });
}

type Props = Record<string, unknown>;
const isMapping = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keys that identify an element or restate the pipeline's own value; never values to supply. */
const IDENTITY_KEYS = new Set(["identifier", "name", "type"]);

/** The pipeline's element an input set's array element stands for: by `identifier` or `name`, of itself or of its one wrapper (`stage`, `step`, ...). */
function matchElement(element: unknown, candidates: unknown[]): unknown {
  if (!isMapping(element)) return undefined;
  const keyOf = (e: unknown): string | undefined => {
    if (!isMapping(e)) return undefined;
    for (const k of ["identifier", "name"]) if (typeof e[k] === "string") return `${k}=${e[k]}`;
    const keys = Object.keys(e);
    if (keys.length === 1 && isMapping(e[keys[0]!])) {
      const inner = keyOf(e[keys[0]!]);
      return inner && `${keys[0]}.${inner}`;
    }
    return undefined;
  };
  const want = keyOf(element);
  return want === undefined ? undefined : candidates.find((c) => keyOf(c) === want);
}

/**
 * The problems of `values` (an input set's `pipeline:` mapping, without its identifier) against
 * the pipeline's document: every value must land on a field the pipeline marks `<+input>`;
 * elements of lists are matched by identifier (or name). `at` is the path of `values` in the inputs.
 */
export function runtimeInputProblems(
  values: Props,
  pipeline: Props,
  pipelineId: string,
  at: JsonPath,
): InputProblem[] {
  const problems: InputProblem[] = [];
  const notInput = (path: JsonPath, why: string) =>
    problems.push({
      path,
      message: `${why}: pipeline "${pipelineId}" does not mark it <+input>, so an input set cannot set it`,
    });
  const walk = (value: unknown, target: unknown, path: JsonPath, key: string | number | undefined): void => {
    if (isRuntimeInputText(target)) return;
    if (typeof key === "string" && IDENTITY_KEYS.has(key) && value === target) return;
    if (Array.isArray(value)) {
      if (!Array.isArray(target)) return void notInput(path, "not a list the pipeline has");
      value.forEach((element, i) => {
        const match = matchElement(element, target);
        if (match === undefined) notInput([...path, i], "no element of the pipeline with this identifier");
        else walk(element, match, [...path, i], i);
      });
      return;
    }
    if (isMapping(value)) {
      if (!isMapping(target)) return void notInput(path, "not a field the pipeline has");
      for (const [k, v] of Object.entries(value)) walk(v, target[k], [...path, k], k);
      return;
    }
    notInput(path, target === undefined ? "not a field of the pipeline" : "not a runtime input");
  };
  for (const [k, v] of Object.entries(values)) walk(v, pipeline[k], [...at, k], k);
  return problems;
}

/**
 * The update of a resource whose YAML is one `content` field: the guarded update of `./guard.ts`
 * that, when the content changed, writes it whole with `put` given the version read (or recorded)
 * and the merged inputs when the guard kept a colleague's edit of inputs the program does not
 * change (`derive`), and otherwise keeps the live object with `keep`.
 */
export function contentUpdate<K extends string, O extends { version?: number | undefined }>(
  u: Omit<GuardedUpdateSpec<K | "content", O>, "write"> & {
    put: (ifMatch: number | undefined, merged?: Record<string, unknown>) => Promise<O>;
    keep: (live: O) => O;
  },
) {
  const { put, keep, ...spec } = u;
  return guardedUpdate({
    ...spec,
    write: async (fields, live, merged) =>
      plain(fields.includes("content") ? await put(live.version ?? u.recorded.version, merged) : keep(live)),
  });
}

/** The SDK namespace of a pipeline's child (`api.inputSets`, `api.triggers`). */
export interface ChildApi<D> {
  get(identifier: string, scope: ReturnType<typeof childScope>): Promise<Versioned<D>>;
  create(yaml: string): Promise<Versioned<D>>;
  update(yaml: string, opts: { ifMatch?: number | undefined }): Promise<Versioned<D>>;
  delete(identifier: string, scope: ReturnType<typeof childScope>): Promise<true>;
}

/**
 * The lifecycle verbs a pipeline's child shares: create (or adopt, or find a lost create, then
 * converge with one guarded PUT), the guarded PUT itself, the lookup and the idempotent delete.
 */
export function childLifecycle<
  I extends PipelineChildKey & { adopt: boolean },
  O extends { yaml: string },
  D,
>(spec: {
  noun: string;
  api: () => ChildApi<D>;
  yaml: (inputs: I) => string;
  outputs: (inputs: I, data: Versioned<D>) => O;
}) {
  const { noun, api, yaml, outputs } = spec;
  /** Replaces the object, guarded by `ifMatch` (the version read, or recorded). */
  const put = async (inputs: I, ifMatch: number | undefined): Promise<O> =>
    outputs(
      inputs,
      await writeIfMatch(describeChild(noun, inputs), ifMatch, (version) =>
        api().update(yaml(inputs), { ifMatch: version }),
      ),
    );
  return {
    put,
    async create(inputs: I) {
      const { value, how } = await createOrAdopt<Versioned<D>>({
        describe: describeChild(noun, inputs),
        adopt: inputs.adopt,
        lookup: () => readOrGone(() => api().get(inputs.identifier, childScope(inputs))),
        create: () => api().create(yaml(inputs)),
      });
      let outs = outputs(inputs, value);
      // An adopted (or recovered) object that differs from the program is converged with one guarded PUT.
      if (how !== "created" && !sameYaml(outs.yaml, yaml(inputs))) outs = await put(inputs, value.version);
      return { id: pipelineChildId(inputs), outs: plain(outs) };
    },
    get: (key: PipelineChildKey) => readOrGone(() => api().get(key.identifier, childScope(key))),
    // The GET answer has no creation time.
    lookup: async (inputs: PipelineChildKey) =>
      (await readOrGone(() => api().get(inputs.identifier, childScope(inputs)))) && {},
    async delete(props: PipelineChildKey) {
      await deleteIdempotent(
        () => api().delete(props.identifier, childScope(props)),
        () => api().get(props.identifier, childScope(props)),
      );
    },
  };
}
