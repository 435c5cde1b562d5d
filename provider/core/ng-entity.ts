/**
 * What the platform's NG CD entities (a `Service`, a `DeliveryEnvironment`, an `Infrastructure`)
 * share in their provider: the inputs of their definitions' common parts (manifests, variables),
 * YAML compared by meaning, the checked inputs recovered from a property bag (recorded outputs or
 * a refresh), and the key an entity is read by (its recorded scope and identifier, or, without old
 * state, the resource id `<org>/<project>/<identifier>`).
 * @module
 */
import { z } from "zod";
import { readYaml } from "../../sdk/core/yaml";
import { Identifier } from "../../sdk/platform/schemas";
import { canonicalJson } from "./diff";
import { pickFields } from "./guard";
import { deleteIdempotent, readOrGone } from "./lifecycle";
import { type EntityKey, parseScopedId } from "./platform-scope";

/** A piece of a definition given as the service's own JSON (a store, an artifact source's spec). */
export const SpecInput = z.record(z.string(), z.unknown(), { error: "spec must be an object" });

/**
 * One manifest of a Kubernetes service, or of an environment's overrides: `K8sManifest`, `Values`,
 * `HelmChart`, ... with its store.
 */
export const ManifestInput = z.strictObject({
  identifier: Identifier,
  /** Manifest type (`K8sManifest`, `Values`, `HelmChart`, `Kustomize`, ...). */
  type: z.string({ error: "manifest type is required" }).min(1, "manifest type cannot be empty"),
  /** The type's spec, as the service takes it (`{store: {type: Github, spec: {...}}}`). */
  spec: SpecInput,
});

/** One variable of a service, or of an environment (which overrides the service's of the same name). */
export const VariableInput = z.strictObject({
  name: z.string().min(1, "variable name cannot be empty"),
  type: z.enum(["String", "Secret", "Number"], { error: "variable type must be String, Secret or Number" }),
  value: z.union([z.string(), z.number()]),
  description: z.string().optional(),
});

/** Two YAML texts mean the same document: parsed, compared as canonical JSON; text that does not parse never equals. */
export function sameYaml(a: unknown, b: unknown): boolean {
  if (typeof a !== "string" || typeof b !== "string") return false;
  try {
    return canonicalJson(readYaml(a)) === canonicalJson(readYaml(b));
  } catch {
    return false;
  }
}

/** The members of `props` that are inputs of `schema`, parsed by it (defaults applied). */
export function inputsFrom<S extends z.ZodObject>(schema: S, props: Record<string, unknown>): z.output<S> {
  return schema.parse(
    Object.fromEntries(Object.entries(props).filter(([k, v]) => k in schema.shape && v !== undefined)),
  );
}

/** The scope and identifier to read: the recorded ones, or without old state those the id names. */
export function entityKeyOf(id: string, prev: Partial<EntityKey> | undefined): EntityKey {
  return prev?.identifier
    ? { org: prev.org, project: prev.project, identifier: prev.identifier }
    : parseScopedId(id);
}

/** An SDK namespace of an entity read and deleted by identifier in a scope (`api.environments`, ...). */
interface ByIdentifier<Scope> {
  get(identifier: string, scope: Scope): Promise<{ createdAt?: number | undefined }>;
  delete(identifier: string, scope: Scope): Promise<unknown>;
}

/**
 * A resource's `lookup` (for `flagstack recover`: the entity and when it was made, or nothing) and
 * `delete` (already gone is success; another refusal is confirmed by a read) of an entity named
 * by its identifier in a scope; `ns` is called at each verb (the process-wide client).
 */
export function lookupAndDelete<K extends { identifier: string }, Scope>(
  ns: () => ByIdentifier<Scope>,
  scope: (k: K) => Scope,
) {
  return {
    async lookup(inputs: K) {
      const data = await readOrGone(() => ns().get(inputs.identifier, scope(inputs)));
      return data && { createdAt: data.createdAt };
    },
    async delete(_id: string, props: K) {
      const api = ns();
      await deleteIdempotent(
        () => api.delete(props.identifier, scope(props)),
        () => api.get(props.identifier, scope(props)),
      );
    },
  };
}

/**
 * The inputs a guarded update writes for an entity whose definition is compared as one YAML diff
 * field, `content`: the written `fields` desired, the `definition` members desired too when
 * `content` is written (absent ones dropped), every other field live; `adopt` as desired.
 */
export function mergeForWrite(
  fields: readonly string[],
  live: object,
  news: { adopt: boolean } & object,
  definition: readonly string[],
): Record<string, unknown> {
  const { yaml: _y, ref: _r, version: _v, ...liveFields } = live as Record<string, unknown>;
  const desired = news as Record<string, unknown>;
  const written = fields.includes("content")
    ? Object.fromEntries(definition.map((k) => [k, desired[k]]))
    : {};
  return { ...liveFields, ...pickFields(news, fields), ...written, adopt: news.adopt };
}
