/**
 * The one place where policies read resource inputs. Each reader turns the `props` of a flagstack
 * resource into a small, typed view; the policies only see the views. When a provider input is
 * renamed, the property list here is the one-line fix.
 *
 * Readers are lenient on purpose: an input may be a name or an `{id, name}` object, a tag list
 * may be strings or `[{name}]`, a definition may sit at the top level or under `definition`, a
 * pipeline may be a typed model object or a YAML string. Validation belongs to the provider's
 * `check` and to the definition-well-formed policy, not to the readers.
 * @module
 */
import { z } from "zod";
import {
  CONNECTOR_TYPE,
  FLAG_DEFINITION_TYPE,
  FLAG_TYPE,
  PIPELINE_TYPE,
  PROJECT_TYPE,
} from "../provider/types";
import { type PipelineView, pipelineViewOfModel, pipelineViewOfYaml } from "../sdk/platform/pipeline";

/** Input names read for each view, first present wins. */
export const PROPS = {
  flag: {
    name: ["name", "flagName"],
    description: ["description"],
    tags: ["tags"],
    rolloutStatus: ["rolloutStatus", "rolloutStatusName"],
    workspace: ["workspace", "workspaceName", "workspaceId"],
    trafficType: ["trafficType", "trafficTypeName"],
  },
  definition: {
    flag: ["flagName", "flag", "name"],
    environment: ["environment", "environmentName", "environmentId"],
    workspace: ["workspace", "workspaceName", "workspaceId"],
    trafficType: ["trafficType", "trafficTypeName"],
    /** Where the definition document sits when it is not at the top level. */
    nested: ["definition"],
    comment: ["comment"],
    title: ["title"],
  },
  pipeline: {
    model: ["pipeline", "model"],
    yaml: ["yaml", "pipelineYaml"],
    org: ["org", "orgIdentifier"],
    project: ["project", "projectIdentifier"],
    scope: ["scope"],
  },
  connector: {
    identifier: ["identifier"],
    name: ["name"],
    type: ["type"],
    spec: ["spec"],
    scope: ["scope"],
    org: ["org", "orgIdentifier"],
    project: ["project", "projectIdentifier"],
    /** The typed container registry spec (`{url, providerType, auth}`; auth defaults to Anonymous). */
    dockerRegistry: ["dockerRegistry"],
    /** Any other connector type: `{type, spec}`. */
    generic: ["generic"],
  },
  project: {
    identifier: ["identifier"],
    org: ["org", "orgIdentifier"],
    tags: ["tags"],
  },
} as const;

/** The definition fields, as `DefinitionBody` names them. */
export const DEFINITION_FIELDS = [
  "treatments",
  "defaultTreatment",
  "baselineTreatment",
  "trafficAllocation",
  "rules",
  "defaultRule",
  "killed",
] as const;

/** Type tokens the views apply to (dynamic resources match on `type`, never on a class). */
export const TYPES = {
  flag: FLAG_TYPE,
  definition: FLAG_DEFINITION_TYPE,
  pipeline: PIPELINE_TYPE,
  connector: CONNECTOR_TYPE,
  project: PROJECT_TYPE,
} as const;

type Props = Record<string, unknown>;

const isRecord = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * True for the error `@pulumi/policy` throws when a policy reads a value that is unknown during a
 * preview (`UnknownValueError`, matched by shape: the pack and the engine may load different
 * copies of the module).
 */
export const isUnknownValueError = (e: unknown): e is Error =>
  e instanceof Error && "unknownTypeSentinel" in e;

/**
 * The first known value of the named properties, looked up in each source in turn (never by
 * spreading: that would read every property, unknown outputs included). When no name has a known
 * value but one is unknown, its `UnknownValueError` is rethrown, so the engine reports that the
 * policy cannot run during this preview rather than the policy guessing.
 */
function first(sources: Props | readonly Props[], names: readonly string[]): unknown {
  let unknown: unknown;
  for (const n of names) {
    for (const src of Array.isArray(sources) ? sources : [sources]) {
      try {
        const v = src[n];
        if (v !== undefined && v !== null) return v;
      } catch (e) {
        if (!isUnknownValueError(e)) throw e;
        unknown ??= e;
      }
    }
  }
  if (unknown !== undefined) throw unknown;
  return undefined;
}

/** Every known value of the named properties (unknown ones skipped). */
function known(sources: readonly Props[], names: readonly string[]): unknown[] {
  const out: unknown[] = [];
  for (const n of names) {
    for (const src of sources) {
      try {
        out.push(src[n]);
      } catch (e) {
        if (!isUnknownValueError(e)) throw e;
      }
    }
  }
  return out;
}

/** A name from a string, or from an `{name}` / `{id}` object (name preferred). */
export function nameOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (isRecord(v)) {
    if (typeof v.name === "string") return v.name;
    if (typeof v.id === "string") return v.id;
  }
  return undefined;
}

/** Every name an environment or workspace reference carries (name and id). */
function namesOf(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (!isRecord(v)) return [];
  return [v.name, v.id].filter((x): x is string => typeof x === "string");
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

// ---------------------------------------------------------------------------------------------
// Flags

export const FlagView = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  /** Tag names, from `["a"]` or `[{name: "a"}]`. */
  tags: z.array(z.string()),
  rolloutStatus: z.string().optional(),
  workspace: z.string().optional(),
  trafficType: z.string().optional(),
});
export type FlagView = z.infer<typeof FlagView>;

/** Reads a Flag resource's inputs. */
export function readFlag(props: Props): FlagView {
  const p = PROPS.flag;
  const tags = first(props, p.tags);
  return {
    name: nameOf(first(props, p.name)),
    description: str(first(props, p.description)),
    tags: Array.isArray(tags) ? tags.map(nameOf).filter((t): t is string => t !== undefined) : [],
    rolloutStatus: nameOf(first(props, p.rolloutStatus)),
    workspace: nameOf(first(props, p.workspace)),
    trafficType: nameOf(first(props, p.trafficType)),
  };
}

// ---------------------------------------------------------------------------------------------
// Flag definitions

export const DefinitionView = z.object({
  flagName: z.string().optional(),
  /** The environment as given (name preferred). */
  environment: z.string().optional(),
  /** Every name the environment reference carries (name and id), to match configured lists. */
  environmentNames: z.array(z.string()),
  workspace: z.string().optional(),
  trafficType: z.string().optional(),
  killed: z.boolean(),
  comment: z.string().optional(),
  title: z.string().optional(),
  /** The definition document's fields, unvalidated (see `DefinitionBody`). */
  body: z.record(z.string(), z.unknown()),
});
export type DefinitionView = z.infer<typeof DefinitionView>;

/** Reads a FlagDefinition resource's inputs. */
export function readDefinition(props: Props): DefinitionView {
  const p = PROPS.definition;
  const nested = first(props, p.nested);
  const src: Props[] = isRecord(nested) ? [nested, props] : [props];
  const env = first(src, p.environment);
  const body: Props = {};
  for (const f of DEFINITION_FIELDS) {
    const v = first(src, [f]);
    if (v !== undefined) body[f] = v;
  }
  // The provider takes configurations as an object too, and sends it as JSON text.
  if (Array.isArray(body.treatments)) {
    body.treatments = body.treatments.map((t) =>
      isRecord(t) && isRecord(t.configurations)
        ? { ...t, configurations: JSON.stringify(t.configurations) }
        : t,
    );
  }
  // The provider's default rule: 100% the default treatment (provider/flag-definition.ts).
  if (body.defaultRule === undefined && typeof body.defaultTreatment === "string") {
    body.defaultRule = [{ treatment: body.defaultTreatment, size: 100 }];
  }
  return {
    flagName: nameOf(first(src, p.flag)),
    environment: nameOf(env),
    // Outputs carry the resolved name and id as well: match configured lists on any of them.
    environmentNames: [...new Set(known(src, p.environment).flatMap(namesOf))],
    workspace: nameOf(first(src, p.workspace)),
    trafficType: nameOf(first(src, p.trafficType)),
    killed: body.killed === true,
    comment: str(first(src, p.comment)),
    title: str(first(src, p.title)),
    body,
  };
}

// ---------------------------------------------------------------------------------------------
// Pipelines: read by the pipeline package's tolerant walker (`sdk/platform/pipeline/walk.ts`), the
// views and the model's default step timeout included, so no pipeline grammar is copied here.

export {
  DEFAULT_STEP_TIMEOUT as MODEL_DEFAULT_STEP_TIMEOUT,
  PipelineView,
  StageView,
  StepView,
} from "../sdk/platform/pipeline";

/**
 * Reads a Pipeline resource's inputs: the typed model (`pipeline`) or the YAML text (`yaml`).
 * @throws Error when the YAML does not parse (reported by the policies as a violation).
 */
export function readPipeline(props: Props): PipelineView | undefined {
  const p = PROPS.pipeline;
  const model = first(props, p.model);
  if (isRecord(model)) return pipelineViewOfModel(model);
  const yaml = first(props, p.yaml);
  return typeof yaml === "string" ? pipelineViewOfYaml(yaml) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Connectors and projects

export const ConnectorView = z.object({
  identifier: z.string().optional(),
  name: z.string().optional(),
  type: z.string().optional(),
  org: z.string().optional(),
  project: z.string().optional(),
  /** `spec.auth.type`, e.g. Anonymous or UsernamePassword. */
  authType: z.string().optional(),
});
export type ConnectorView = z.infer<typeof ConnectorView>;

/** Reads a Connector resource's inputs; the scope is `scope: {org, project}` or top-level fields. */
export function readConnector(props: Props): ConnectorView {
  const p = PROPS.connector;
  const scope = first(props, p.scope);
  const scoped: Props[] = isRecord(scope) ? [scope, props] : [props];
  const docker = first(props, p.dockerRegistry);
  const generic = first(props, p.generic);
  const spec = first(props, p.spec) ?? (isRecord(generic) ? generic.spec : undefined);
  const auth =
    isRecord(spec) && spec.auth !== undefined
      ? spec.auth
      : isRecord(docker)
        ? (docker.auth ?? { type: "Anonymous" })
        : undefined;
  const type =
    first(props, p.type) ??
    (isRecord(docker) ? "DockerRegistry" : isRecord(generic) ? generic.type : undefined);
  return {
    identifier: str(first(props, p.identifier)),
    name: str(first(props, p.name)),
    type: str(type),
    org: nameOf(first(scoped, p.org)),
    project: nameOf(first(scoped, p.project)),
    authType: isRecord(auth) ? str(auth.type) : undefined,
  };
}

export const ProjectView = z.object({
  identifier: z.string().optional(),
  org: z.string().optional(),
  tags: z.record(z.string(), z.string()),
});
export type ProjectView = z.infer<typeof ProjectView>;

/** Reads a Project resource's inputs. */
export function readProject(props: Props): ProjectView {
  const p = PROPS.project;
  const tags = first(props, p.tags);
  const out: Record<string, string> = {};
  if (isRecord(tags)) for (const [k, v] of Object.entries(tags)) out[k] = String(v);
  return { identifier: str(first(props, p.identifier)), org: nameOf(first(props, p.org)), tags: out };
}
