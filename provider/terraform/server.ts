/**
 * The Terraform/OpenTofu door: the plugin protocol 6 `Provider` service, dispatching each resource
 * type to its kind's `impl`, the same lifecycle verbs the dynamic and native Pulumi providers call
 * (`../kinds.ts`): no verb is implemented here, each RPC only converts values
 * (`./values.ts`) and calls them.
 *
 * | RPC | what it calls |
 * |---|---|
 * | GetMetadata, GetProviderSchema | the schema derived from the list of kinds (`./schema.ts`) |
 * | ValidateProviderConfig, ConfigureProvider | the settings of `provider/core/config.ts` (snake_case), through each kind's `configure`; unset ones fall back to the same environment variables |
 * | ValidateResourceConfig | the kind's `check`: one error diagnostic per failure, naming the attribute path; no request |
 * | PlanResourceChange | `check`, then on an update the kind's `diff` (its `replaces` are the `requires_replace` paths); a create's computed values are unknown, an update's outputs that are no input too. A delete (`plan_destroy`): the owner gate's reads, handed to the apply, and a warning where an approval stands in front of it (`destroyPlan`) |
 * | ApplyResourceChange | `create`, `update` (the minimal guarded write) or `delete`; the delete of a resource the service deletes with its owner (a flag's definition) is held back for the owner's delete in the same run (`./held-deletes.ts`) |
 * | ReadResource | `read`; a gone object is a null state; an input the kind's `diff` finds unchanged keeps the configuration's spelling |
 * | ImportResourceState | `read` by the kind's import id (`<workspace>/<name>`, ...) |
 * | UpgradeResourceState | identity at schema version 0 |
 * | ValidateDataResourceConfig, ReadDataSource | each lookup as a data source (`flagstack_workspace` for `getWorkspace`): the function the native provider's invoke runs (`../native/functions.ts`) |
 * | StopProvider | nothing to interrupt: answered at once |
 *
 * The state of a resource is one object (Terraform keeps no separate inputs): an input the
 * configuration sets keeps the configuration's value in the planned and new state, as Terraform
 * requires, and the kind's outputs fill the rest; the verbs read that object back as their
 * recorded outputs (`olds`), as the Pulumi engine passes the recorded outputs.
 * @module
 */
import { approvalsRequired, gatedEnvironments, readAheadOwnerGate } from "../core/change-request";
import { adminClient, ProviderSettings, SETTINGS } from "../core/config";
import { importIdOf } from "../core/import-id";
import type { AnyHandlers, Kind } from "../core/kind";
import { alreadyExistsMessage } from "../core/lifecycle";
import { configure as sharedConfigure } from "../core/resource";
import type { NativeFunction } from "../native/functions";
import { HeldDeletes, heldEnvironments, noteFailedHeldDeletes, takeFailedHeldDeletes } from "./held-deletes";
import { KIND_LOADERS, OWNER_KINDS } from "./kind-loaders";
import { isUnknown } from "./msgpack";
import { nativeFunctions } from "./native-functions-loader";
import {
  dataSourceSchema,
  type PackageSchemaPart,
  providerConfigSchema,
  readPackageSchema,
  resourceSchema,
  resourceTypeName,
  schemaMessage,
  type TfAttribute,
  type TfDataSource,
  type TfResource,
  type TfType,
} from "./schema";
import {
  blockType,
  type DynamicValue,
  decodeDynamic,
  encodeDynamic,
  fromJsonText,
  fromProvider,
  holdsUnknown,
  type TfObject,
  type TfValue,
  toProvider,
  unknownValue,
} from "./values";

/**
 * What the provider tells OpenTofu it does: plan each delete with it (`destroyPlan`), and serve a
 * start of the same command without a schema request first.
 */
const SERVER_CAPABILITIES = { plan_destroy: true, get_provider_schema_optional: true } as const;
/** The resource types whose kind owns others (`flagstack_flag`), known without loading the kinds. */
const OWNER_TYPE_NAMES: ReadonlySet<string> = new Set(OWNER_KINDS.map(resourceTypeName));
/** The resource types whose planned update says who it reaches (`./reach.ts`). */
const DEFINITION_TYPES = new Set(["flagstack_flag_definition", "flagstack_flag_definitions"]);
/** The value the kinds' `check` takes for an input not known yet (`provider/core/check.ts` `UNKNOWN`). */
const PULUMI_UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** `Diagnostic.Severity`. */
const ERROR = 1;

/** A protocol diagnostic. */
export interface Diagnostic {
  severity: number;
  summary: string;
  detail: string;
  attribute?: { steps: Step[] };
}
/** One step of an `AttributePath`. */
export type Step = { attribute_name: string } | { element_key_string: string } | { element_key_int: number };

/** A warning diagnostic (`Diagnostic.Severity` WARNING). */
const warning = (summary: string, detail: string): Diagnostic => ({ severity: 2, summary, detail });

const diag = (summary: string, detail = "", steps?: Step[]): Diagnostic => ({
  severity: ERROR,
  summary,
  detail,
  ...(steps && steps.length > 0 ? { attribute: { steps } } : {}),
});

/** What the dispatch serves: the resource types and the provider's configuration, from the list of kinds. */
export interface Catalog {
  resources: ReadonlyMap<string, TfResource>;
  /** The lookups as data sources, each with the lookup it runs. */
  dataSources: ReadonlyMap<string, TfDataSource & { run: NativeFunction["run"] }>;
  config: TfAttribute[];
}

/**
 * A map whose values are made on first use: `keys` known at once, each value by `make` when it is
 * first read (`undefined` for no key), every one when the map is iterated.
 */
class OnDemandMap<V> implements ReadonlyMap<string, V> {
  private readonly made = new Map<string, V>();
  constructor(
    private readonly names: () => readonly string[],
    private readonly make: (key: string) => V | undefined,
  ) {}
  get(key: string): V | undefined {
    const done = this.made.get(key);
    if (done !== undefined) return done;
    const value = this.make(key);
    if (value !== undefined) this.made.set(key, value);
    return value;
  }
  has(key: string): boolean {
    return this.names().includes(key);
  }
  get size(): number {
    return this.names().length;
  }
  *keys(): MapIterator<string> {
    yield* this.names();
  }
  *values(): MapIterator<V> {
    for (const key of this.names()) yield this.get(key) as V;
  }
  *entries(): MapIterator<[string, V]> {
    for (const key of this.names()) yield [key, this.get(key) as V];
  }
  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
  forEach(f: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.entries()) f(value, key, this);
  }
}

/**
 * The catalog of the list of kinds and the committed package schema. With no `kinds` given, a
 * resource type's kind loads when the type is first asked for (`./kind-loaders.ts`), and the
 * lookups (the data sources) when one is: a start that serves a plan of flags loads the flags'
 * kinds, not the platform's (issue 35).
 */
export function catalog(
  kinds?: readonly Kind[],
  schema: PackageSchemaPart = readPackageSchema(),
  settings: readonly string[] = Object.keys(SETTINGS),
  lookups?: readonly NativeFunction[],
): Catalog {
  const byType = new Map(
    kinds === undefined
      ? Object.entries(KIND_LOADERS).map(([name, load]) => [resourceTypeName(name), load] as const)
      : kinds.map((kind) => [resourceTypeName(kind.name), () => kind] as const),
  );
  const types = [...byType.keys()];
  const resources = new OnDemandMap<TfResource>(
    () => types,
    (type) => {
      const load = byType.get(type);
      return load === undefined ? undefined : resourceSchema(load(), schema);
    },
  );
  let sources: Map<string, TfDataSource & { run: NativeFunction["run"] }> | undefined;
  const dataSourceMap = () => {
    if (sources === undefined) {
      const all = lookups ?? nativeFunctions();
      sources = new Map();
      for (const lookup of all) {
        const d = dataSourceSchema(lookup, schema);
        sources.set(d.typeName, { ...d, run: lookup.run });
      }
    }
    return sources;
  };
  const dataSources = new OnDemandMap(
    () => [...dataSourceMap().keys()],
    (type) => dataSourceMap().get(type),
  );
  return { resources, dataSources, config: providerConfigSchema(schema, settings) };
}

// ---------------------------------------------------------------------------------------------
// Attribute paths

/**
 * The attribute path of a `check` failure's property (`treatments[0].name`, `tags["a b"]`), with
 * each object member by its Terraform name (`default_treatment`) and map keys as they are.
 */
export function attributePath(property: string, type: TfType): Step[] {
  const steps: Step[] = [];
  const re = /(?:^|\.)([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  let current: TfType | undefined = type;
  for (let m = re.exec(property); m !== null; m = re.exec(property)) {
    if (m[1] !== undefined) {
      const name: string = m[1];
      if (current?.kind === "object") {
        const a: TfAttribute | undefined = current.attributes.find((x) => x.key === name);
        steps.push({ attribute_name: a?.name ?? name });
        current = a?.type;
      } else if (current?.kind === "map") {
        steps.push({ element_key_string: name });
        current = current.element;
      } else {
        steps.push({ attribute_name: name });
        current = undefined;
      }
    } else if (m[2] !== undefined) {
      steps.push({ element_key_int: Number(m[2]) });
      current = current?.kind === "list" ? current.element : undefined;
    } else if (m[3] !== undefined) {
      steps.push({ element_key_string: JSON.parse(`"${m[3]}"`) as string });
      current = current?.kind === "map" ? current.element : undefined;
    }
  }
  return steps;
}

/** An attribute path as Terraform writes it: `treatments[1].name`, `tags["a b"]`. */
export function pathText(steps: readonly Step[]): string {
  return steps
    .map((s, i) =>
      "attribute_name" in s
        ? `${i === 0 ? "" : "."}${s.attribute_name}`
        : "element_key_int" in s
          ? `[${s.element_key_int}]`
          : `[${JSON.stringify(s.element_key_string)}]`,
    )
    .join("");
}

// ---------------------------------------------------------------------------------------------
// The dispatch

type Inputs = Record<string, unknown>;

/**
 * Configures the kinds with the provider's settings (`flagstack:<name>` → text), as the
 * dynamic-provider host's `configure` takes stack config: `ConfigureProvider`, and
 * `flagstack terraform recover` (`./recover.ts`) from the plan's provider block.
 */
export async function configureKinds(values: ReadonlyMap<string, string>): Promise<void> {
  const config = {
    get: (key: string) => values.get(key),
    require(key: string): string {
      const value = values.get(key);
      if (value === undefined) throw new Error(`flagstack: missing required configuration ${key}`);
      return value;
    },
  };
  // Every kind's `configure` is the shared one (test/provider/terraform/kind-loaders.test.ts holds it
  // so): called once, it configures the kinds not loaded yet too.
  await sharedConfigure({ config } as Parameters<AnyHandlers["configure"]>[0]);
}

/** The calls whose diagnostics may name a kind's attributes. */
const DIAGNOSING = [
  "configureProvider",
  "validateResourceConfig",
  "validateDataResourceConfig",
  "readDataSource",
  "upgradeResourceState",
  "planResourceChange",
  "applyResourceChange",
  "readResource",
  "importResourceState",
] as const;

/**
 * Every name the catalog's attributes have in camelCase (`trafficAllocation`, at any level of
 * nesting, resources and data sources and the provider's settings alike), with the name the
 * configuration writes (`traffic_allocation`).
 */
export function terraformNames(cat: Catalog): Map<string, string> {
  const names = new Map<string, string>();
  const walk = (attributes: readonly TfAttribute[]) => {
    for (const a of attributes) {
      if (a.key !== a.name && /[A-Z]/.test(a.key)) names.set(a.key, a.name);
      let t: TfType = a.type;
      while (t.kind === "list" || t.kind === "map") t = t.element;
      if (t.kind === "object") walk(t.attributes);
    }
  };
  for (const r of cat.resources.values()) walk(r.attributes);
  for (const d of cat.dataSources.values()) walk(d.attributes);
  walk(cat.config);
  return names;
}

/** `text` with each of `names` (whole words only: not `trafficTypes`) in the configuration's spelling. */
export function inTerraformNames(text: string, names: ReadonlyMap<string, string>): string {
  if (!/[a-z][A-Z]/.test(text)) return text;
  return text.replace(
    /(?<![A-Za-z0-9_$])[a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*(?![A-Za-z0-9_])/g,
    (word) => names.get(word) ?? word,
  );
}

/** A configuration's check: the inputs the kind's `check` gives, or the diagnostics naming each bad attribute. */
interface Checked {
  inputs?: Inputs;
  diagnostics: Diagnostic[];
}

/** How many checked configurations a provider process remembers (a walk's resources, bounded). */
const CHECK_MEMO = 10_000;

/** The Provider service's handlers, each taking and returning the decoded messages. */
export class TerraformProvider {
  /** The deletes held back for their owner's delete in this run (`./held-deletes.ts`). */
  readonly held = new HeldDeletes();
  /** Checked configurations by type and wire bytes ({@link checkedConfig}). */
  private readonly checks = new Map<string, { config: TfObject | null; checked: Checked }>();

  constructor(private readonly cat: Catalog) {
    // Every answer's diagnostics name attributes as the configuration does (`traffic_allocation`),
    // not as the kinds' checks and verbs do (`trafficAllocation`): the door speaks Terraform. The
    // names are read from every kind, so on the first answer that has a diagnostic.
    let names: Map<string, string> | undefined;
    const speak = <A extends { diagnostics?: Diagnostic[] }>(answer: A): A => {
      if (answer.diagnostics && answer.diagnostics.length > 0) {
        names ??= terraformNames(cat);
        const spoken = names;
        answer.diagnostics = answer.diagnostics.map((d) => ({
          ...d,
          summary: inTerraformNames(d.summary, spoken),
          detail: inTerraformNames(d.detail, spoken),
        }));
      }
      return answer;
    };
    for (const method of DIAGNOSING) {
      const call = this[method].bind(this) as (req: never) => unknown;
      // A call that answers at once keeps doing so (`upgradeResourceState`); a promise is awaited.
      (this as unknown as Record<string, unknown>)[method] = (req: never) => {
        const answer = call(req) as { diagnostics?: Diagnostic[] } | Promise<{ diagnostics?: Diagnostic[] }>;
        return answer instanceof Promise ? answer.then(speak) : speak(answer);
      };
    }
  }

  /**
   * The end of the run (go-plugin's `Shutdown`): the held deletes whose owner was not deleted are
   * sent, each the kind's own delete; the failures, as messages (logged: the run has ended).
   */
  async finish(): Promise<string[]> {
    const failures = await this.held.send();
    noteFailedHeldDeletes(failures);
    return failures;
  }

  /**
   * The owner key a delete of `r` may be held back for: the resource lives inside an owner the
   * service deletes it with, in an environment that requires no approvals. Otherwise `undefined`:
   * the kind's own delete runs at once.
   */
  private async holdFor(r: TfResource, olds: Inputs): Promise<string | undefined> {
    const owner = r.kind.resource.owner;
    if (owner === undefined) return undefined;
    const key = HeldDeletes.key(owner.type, olds.workspaceId, olds[owner.input]);
    const { workspaceId } = olds;
    const environmentIds = heldEnvironments(olds);
    if (key === undefined || environmentIds === undefined || typeof workspaceId !== "string")
      return undefined;
    try {
      const gated = await Promise.all(
        environmentIds.map((environmentId) => approvalsRequired(adminClient(), workspaceId, environmentId)),
      );
      if (gated.some(Boolean)) return undefined;
    } catch {
      return undefined;
    }
    // The owner's delete comes once OpenTofu has walked every held delete: its gate's reads go now
    // (the first held delete sends them; the later ones find them read, as every one does when
    // the destroy's plan handed them over).
    readAheadOwnerGate(adminClient(), workspaceId);
    return key;
  }

  /** The delete of `r`: held back for its owner's, or the kind's own (an owner's then also does what it held). */
  private async remove(r: TfResource, id: string, olds: Inputs): Promise<void> {
    const holdKey = await this.holdFor(r, olds);
    if (holdKey !== undefined) {
      this.held.hold(holdKey, { describe: `${r.typeName} ${id}`, run: () => r.kind.impl.delete(id, olds) });
      return;
    }
    const type = r.kind.resource.__pulumiType;
    const ownerKey = this.owns(r) ? HeldDeletes.key(type, olds.workspaceId, olds.name) : undefined;
    try {
      await r.kind.impl.delete(id, olds);
    } catch (e) {
      if (ownerKey === undefined) throw e;
      // The owner stays: what it held is deleted on its own, and its failures told with the owner's.
      const failures = await this.held.send(ownerKey);
      throw failures.length === 0 ? e : new Error([message(e), ...failures].join("\n"));
    }
    if (ownerKey !== undefined) this.held.done(ownerKey);
  }

  /** Whether `r`'s kind owns others (`Flag`, `Segment`, ...): the service deletes them with it. */
  private owns(r: TfResource): boolean {
    return OWNER_TYPE_NAMES.has(r.typeName);
  }

  /**
   * The plan of `r`'s delete (OpenTofu asks for it: `plan_destroy`). Where the delete goes through
   * the owner gate (a definition's, held back for its flag's, or the flag's own), the gate's reads
   * go now, and the apply that follows takes them from this process (`../core/gate-ledger.ts`)
   * instead of spending its first requests on them. A delete that needs an approval is told as a
   * warning, so the plan shows what the apply will ask for. A read that fails tells nothing: the
   * apply reads again, and fails there.
   */
  private async destroyPlan(r: TfResource, prior: TfObject): Promise<Diagnostic[]> {
    const owned = r.kind.resource.owner !== undefined;
    const { olds } = recorded(r, prior);
    const { workspaceId } = olds;
    if (typeof workspaceId !== "string") return [];
    let gated: { id: string; name: string }[];
    try {
      gated = await gatedEnvironments(adminClient(), workspaceId);
    } catch {
      return [];
    }
    if (owned) {
      // A definition's environment, or each of a flag's definitions' (`FlagDefinitions`).
      const mine = new Set(heldEnvironments(olds) ?? []);
      const envs = gated.filter((e) => mine.has(e.id));
      if (envs.length === 0) return [];
      return [
        warning(
          approvalsSummary(envs),
          "The apply asks for this delete with an ARCHIVE change request; the object stays, and stays in the state, until the request is approved (`waitForApproval` waits for it).",
        ),
      ];
    }
    if (gated.length === 0) return [];
    const names = gated.map((e) => `"${e.name}"`).join(", ");
    return [
      warning(
        approvalsSummary(gated),
        `Deleting it deletes what it holds in every environment: where it holds anything in ${names}, the apply first asks for that with an ARCHIVE change request, and it stays, and stays in the state, until each request is approved.`,
      ),
    ];
  }

  private resource(typeName: string): TfResource {
    const r = this.cat.resources.get(typeName);
    if (r === undefined) throw new Error(`flagstack: unknown resource type ${typeName}`);
    return r;
  }

  getMetadata() {
    return {
      server_capabilities: SERVER_CAPABILITIES,
      diagnostics: [],
      data_sources: [...this.cat.dataSources.keys()].map((type_name) => ({ type_name })),
      resources: [...this.cat.resources.keys()].map((type_name) => ({ type_name })),
    };
  }

  getProviderSchema() {
    const resource_schemas: Record<string, unknown> = {};
    for (const [name, r] of this.cat.resources) {
      resource_schemas[name] = schemaMessage(r.attributes, r.version, r.description);
    }
    const data_source_schemas: Record<string, unknown> = {};
    for (const [name, d] of this.cat.dataSources) {
      data_source_schemas[name] = schemaMessage(d.attributes, 0, d.description);
    }
    return {
      provider: schemaMessage(
        this.cat.config,
        0,
        "The flagstack provider: feature flags and delivery pipelines. Each setting falls back to its environment variable (`FLAGSTACK_ADMIN_API_URL`, ...).",
      ),
      resource_schemas,
      data_source_schemas,
      diagnostics: [],
      server_capabilities: SERVER_CAPABILITIES,
    };
  }

  /** The configuration as `flagstack:<setting>` → text, as the kinds' `configure` reads stack config. */
  private configValues(config: DynamicValue | undefined): Map<string, string> {
    const type = blockType(this.cat.config);
    const record = (toProvider(decodeDynamic(config, type), type, PULUMI_UNKNOWN) ?? {}) as Inputs;
    const values = new Map<string, string>();
    for (const [key, value] of Object.entries(record)) {
      if (value === PULUMI_UNKNOWN) continue;
      values.set(`flagstack:${key}`, typeof value === "string" ? value : String(value));
    }
    return values;
  }

  validateProviderConfig(req: { config?: DynamicValue }) {
    const raw = Object.fromEntries([...this.configValues(req.config)].map(([k, v]) => [k.slice(10), v]));
    const parsed = ProviderSettings.safeParse(raw);
    const type = blockType(this.cat.config);
    const diagnostics = parsed.success
      ? []
      : parsed.error.issues.map((i) => {
          const key = String(i.path[0]);
          const steps = attributePath(key, type);
          return diag(`${pathText(steps)}: ${i.message}`, "", steps);
        });
    return { diagnostics };
  }

  async configureProvider(req: { config?: DynamicValue }) {
    try {
      await configureKinds(this.configValues(req.config));
      // What an earlier run in this directory could not report (`./held-deletes.ts`).
      const earlier = takeFailedHeldDeletes().map((n) =>
        warning(
          `A delete held back in an earlier run failed: ${n.failure}`,
          `At ${n.at} an apply removed this object from the state and held its delete back for its owner's delete in the same run; the owner stayed, and the delete sent at the end of the run failed. The object may still exist on the service: delete it there, or manage it again with an import block.`,
        ),
      );
      return { diagnostics: earlier };
    } catch (e) {
      return { diagnostics: [diag(message(e))] };
    }
  }

  /** The kind's `check` of a configuration: its inputs, or the diagnostics naming each bad attribute. */
  private async check(r: TfResource, config: TfValue): Promise<Checked> {
    const type = blockType(r.attributes);
    const news = (toProvider(config, type, PULUMI_UNKNOWN) ?? {}) as Inputs;
    const result = await r.kind.impl.check({}, news);
    const diagnostics = (result.failures ?? []).map((f) => {
      const steps = attributePath(f.property, type);
      return diag(steps.length > 0 ? `${pathText(steps)}: ${f.reason}` : f.reason, "", steps);
    });
    return { inputs: result.inputs as Inputs | undefined, diagnostics };
  }

  /**
   * A configuration as it came on the wire, decoded and checked: OpenTofu sends each resource's
   * configuration to `ValidateResourceConfig` and then the same bytes to `PlanResourceChange` in one
   * walk, so the second is answered from the first (issue 26, `tofu_plan_unchanged_seconds`). The
   * check reads no live state (no request), so the same bytes always check the same; the memo
   * holds the last {@link CHECK_MEMO} configurations.
   */
  private async checkedConfig(
    r: TfResource,
    dv: DynamicValue | undefined,
  ): Promise<{ config: TfObject | null; checked: Checked }> {
    const bytes = dv?.msgpack;
    const key =
      bytes && bytes.length > 0 ? `${r.typeName}\0${Buffer.from(bytes).toString("latin1")}` : undefined;
    const memo = key === undefined ? undefined : this.checks.get(key);
    if (memo !== undefined) return memo;
    const config = decodeDynamic(dv, blockType(r.attributes)) as TfObject | null;
    const result = { config, checked: await this.check(r, config) };
    if (key !== undefined) {
      if (this.checks.size >= CHECK_MEMO) this.checks.clear();
      this.checks.set(key, result);
    }
    return result;
  }

  async validateResourceConfig(req: { type_name: string; config?: DynamicValue }) {
    const r = this.resource(req.type_name);
    return { diagnostics: (await this.checkedConfig(r, req.config)).checked.diagnostics };
  }

  private dataSource(typeName: string) {
    const d = this.cat.dataSources.get(typeName);
    if (d === undefined) throw new Error(`flagstack: unknown data source ${typeName}`);
    return d;
  }

  validateDataResourceConfig(req: { type_name: string }) {
    this.dataSource(req.type_name);
    return { diagnostics: [] };
  }

  /**
   * A data source: the lookup the Pulumi function runs, with the configuration's arguments; the
   * state is its result, the arguments as configured.
   */
  async readDataSource(req: { type_name: string; config?: DynamicValue }) {
    const d = this.dataSource(req.type_name);
    const type = blockType(d.attributes);
    const config = decodeDynamic(req.config, type) as TfObject | null;
    try {
      const args = (toProvider(config, type, PULUMI_UNKNOWN) ?? {}) as Inputs;
      const result = (await d.run(args)) as Inputs;
      const state = fromProvider(result, type) as TfObject;
      for (const a of d.attributes)
        if ((config?.[a.name] ?? null) !== null) state[a.name] = config?.[a.name] ?? null;
      return { state: encodeDynamic(state, type), diagnostics: [] };
    } catch (e) {
      return { state: req.config, diagnostics: [diag(message(e))] };
    }
  }

  upgradeResourceState(req: { type_name: string; version: number; raw_state?: { json?: Uint8Array } }) {
    const r = this.resource(req.type_name);
    const type = blockType(r.attributes);
    const json = req.raw_state?.json;
    if (!json || json.length === 0)
      return {
        diagnostics: [
          diag(`${req.type_name}: the state is in the legacy flatmap form, which flagstack never wrote`),
        ],
      };
    // Schema version 0 is the only one: the state is read as it is, an attribute the schema no
    // longer has dropped and an absent one null. The answer is MessagePack even where the stored
    // JSON would do as it is: OpenTofu reads a JSON `DynamicValue` with cty's JSON decoder
    // (`internal/plugin6/grpc_provider.go` `decodeDynamicValue`), several times slower than its
    // MessagePack one, and a plan upgrades every resource while this process mostly waits for it.
    const text = Buffer.from(json).toString("utf8");
    return { upgraded_state: encodeDynamic(fromJsonText(text, type), type), diagnostics: [] };
  }

  async planResourceChange(req: {
    type_name: string;
    prior_state?: DynamicValue;
    proposed_new_state?: DynamicValue;
    config?: DynamicValue;
    prior_private?: Uint8Array;
  }) {
    const r = this.resource(req.type_name);
    const type = blockType(r.attributes);
    const proposed = decodeDynamic(req.proposed_new_state, type) as TfObject | null;
    const none = { planned_private: req.prior_private ?? Buffer.alloc(0), requires_replace: [] };
    if (proposed === null) {
      // Only a delete through the owner gate needs anything of the plan (`destroyPlan`), and
      // only it reads the recorded state.
      const gate = r.kind.resource.owner !== undefined || this.owns(r);
      const prior = gate ? (decodeDynamic(req.prior_state, type) as TfObject | null) : null;
      const diagnostics = prior !== null ? await this.destroyPlan(r, prior) : [];
      return { ...none, planned_state: encodeDynamic(null, type), diagnostics };
    }
    const prior = decodeDynamic(req.prior_state, type) as TfObject | null;
    const { config, checked } = await this.checkedConfig(r, req.config);
    if (checked.diagnostics.length > 0)
      return { ...none, planned_state: req.proposed_new_state, diagnostics: checked.diagnostics };
    const inputs = checked.inputs ?? {};
    const planned: TfObject = { ...proposed };
    const inputKeys = inputKeysOf(r);
    if (prior === null) {
      // Create: what the configuration leaves out is the check's default, else decided by the apply.
      for (const a of r.attributes) {
        if (!a.computed || (config?.[a.name] ?? null) !== null) continue;
        const checkedValue = inputKeys.has(a.key) ? inputs[a.key] : undefined;
        planned[a.name] =
          checkedValue === undefined || JSON.stringify(checkedValue).includes(PULUMI_UNKNOWN)
            ? unknownValue()
            : fromProvider(checkedValue, a.type);
      }
      return { ...none, planned_state: encodeDynamic(planned, type), diagnostics: [] };
    }
    // Update: an input the configuration leaves out keeps its recorded value (the service's value,
    // not managed). Terraform's own proposal would drop a nested attribute's recorded value when its
    // members are not computed (OpenTofu `internal/plans/objchange` `optionalValueNotComputable`).
    for (const a of r.attributes)
      if (a.computed && inputKeys.has(a.key) && (config?.[a.name] ?? null) === null)
        planned[a.name] = prior[a.name] ?? null;
    const { id, olds } = recorded(r, prior);
    let changes: boolean | undefined;
    let replaces: string[] = [];
    if (holdsUnknown(config)) {
      // Not decidable yet: an unknown replacing input may replace.
      changes = undefined;
      replaces = r.kind.replaceOnChange.filter((key) => {
        const a = r.attributes.find((x) => x.key === key);
        return a !== undefined && holdsUnknown(config?.[a.name] ?? null);
      });
    } else {
      const diff = await r.kind.impl.diff(id, olds, inputs);
      changes = diff.changes;
      replaces = (diff.replaces ?? []).flatMap((field) => fieldInputs(r.kind, field, inputs));
    }
    if (changes !== false) {
      // An input the configuration leaves out that the check gives a default (a definition's
      // `traffic_allocation`, 100) is written back by the update: the plan shows that value, so an
      // edit made outside shows as `50 -> 100` and the state after the apply is the live value.
      for (const a of r.attributes) {
        const value = inputs[a.key];
        if (!a.computed || !inputKeys.has(a.key) || (config?.[a.name] ?? null) !== null) continue;
        if (value !== undefined && !JSON.stringify(value).includes(PULUMI_UNKNOWN))
          planned[a.name] = fromProvider(value, a.type);
      }
      // The outputs that are no input may change with the update: decided by the apply.
      for (const a of r.attributes)
        if (a.computed && !inputKeys.has(a.key) && a.name !== "id") planned[a.name] = unknownValue();
      if (replaces.length > 0) planned.id = unknownValue();
    }
    const requires_replace = [...new Set(replaces)].flatMap((key) => {
      const a = r.attributes.find((x) => x.key === key);
      return a === undefined ? [] : [{ steps: [{ attribute_name: a.name }] }];
    });
    // Who a definition's update reaches, beside its diff (`./reach.ts`; loaded only for one): each
    // environment's, for a flag's definitions in several.
    const diagnostics: Diagnostic[] = [];
    if (changes === true && replaces.length === 0 && DEFINITION_TYPES.has(r.typeName)) {
      for (const reach of await (await import("./reach.js")).reachWarnings(olds, inputs))
        diagnostics.push(warning(reach.summary, reach.detail));
    }
    return { ...none, requires_replace, planned_state: encodeDynamic(planned, type), diagnostics };
  }

  async applyResourceChange(req: {
    type_name: string;
    prior_state?: DynamicValue;
    planned_state?: DynamicValue;
    config?: DynamicValue;
    planned_private?: Uint8Array;
  }) {
    const r = this.resource(req.type_name);
    const type = blockType(r.attributes);
    const prior = decodeDynamic(req.prior_state, type) as TfObject | null;
    const planned = decodeDynamic(req.planned_state, type) as TfObject | null;
    const config = decodeDynamic(req.config, type) as TfObject | null;
    const priv = req.planned_private ?? Buffer.alloc(0);
    /** The checked inputs of a create, which a conflict's message names the import block by. */
    let creating: Inputs | undefined;
    try {
      if (planned === null) {
        if (prior !== null) {
          const { id, olds } = recorded(r, prior);
          await this.remove(r, id, olds);
        }
        return { new_state: encodeDynamic(null, type), private: priv, diagnostics: [] };
      }
      // What was planned is applied, not the configuration as written: an attribute the plan took
      // from the state instead (`lifecycle { ignore_changes = [...] }`: Terraform sends the raw
      // configuration to the apply, the recorded value in the planned state) keeps its planned value.
      const applied: TfObject | null = config === null ? null : { ...config };
      if (applied !== null)
        for (const a of r.attributes) {
          const p = planned[a.name] ?? null;
          if ((config?.[a.name] ?? null) !== null && p !== null && !holdsUnknown(p)) applied[a.name] = p;
        }
      const checked = await this.check(r, applied);
      if (checked.diagnostics.length > 0)
        return { new_state: req.prior_state, private: priv, diagnostics: checked.diagnostics };
      const inputs = checked.inputs ?? {};
      creating = prior === null ? inputs : undefined;
      // A create or update comes after the held deletes it may depend on (a definition replaced
      // is created again once the old one is gone): they are sent first.
      const failures = await this.held.send();
      if (failures.length > 0) throw new Error(failures.join("\n"));
      let id: string;
      let outs: Inputs;
      if (prior === null) {
        const result = await r.kind.impl.create(inputs);
        id = result.id;
        outs = (result.outs ?? {}) as Inputs;
      } else {
        const rec = recorded(r, prior);
        id = rec.id;
        outs = ((await r.kind.impl.update(rec.id, rec.olds, inputs)).outs ?? {}) as Inputs;
      }
      const state = stateOf(r, id, outs);
      // What the plan knew stays as planned (Terraform requires it); the rest is the kind's outputs.
      for (const a of r.attributes) {
        const p = planned[a.name] ?? null;
        if (a.name !== "id" && !holdsUnknown(p) && (p !== null || !a.computed)) state[a.name] = p;
      }
      return { new_state: encodeDynamic(state, type), private: priv, diagnostics: [] };
    } catch (e) {
      // A create that failed after the object was made (`provider/core/lifecycle.ts`
      // `PartialFailure`): its state is recorded, so the object is not lost (Terraform marks it
      // tainted). Otherwise the state the apply started from.
      const partial = partialFailure(e);
      return {
        new_state: partial
          ? encodeDynamic(stateOf(r, partial.id, partial.properties), type)
          : (req.prior_state ?? encodeDynamic(null, type)),
        private: priv,
        diagnostics: [diag(creating === undefined ? message(e) : createMessage(r, creating, e))],
      };
    }
  }

  async readResource(req: { type_name: string; current_state?: DynamicValue; private?: Uint8Array }) {
    const r = this.resource(req.type_name);
    const type = blockType(r.attributes);
    const current = decodeDynamic(req.current_state, type) as TfObject | null;
    const priv = req.private ?? Buffer.alloc(0);
    if (current === null) return { new_state: encodeDynamic(null, type), private: priv, diagnostics: [] };
    try {
      const { id, olds } = recorded(r, current);
      const result = await r.kind.impl.read(id, olds);
      if (!result.id) return { new_state: encodeDynamic(null, type), private: priv, diagnostics: [] };
      const live = (result.props ?? {}) as Inputs;
      const state = stateOf(r, result.id, live);
      // Each input the kind's diff finds unchanged keeps the recorded spelling (no perpetual diff).
      const recordedInputs = Object.fromEntries(
        Object.keys(r.kind.resource.inputs.shape).flatMap((k) =>
          olds[k] === undefined ? [] : [[k, olds[k]]],
        ),
      );
      const diff = await r.kind.impl.diff(result.id, live, recordedInputs);
      const stable = new Set(
        diff.changes === false
          ? Object.keys(recordedInputs)
          : (diff.stables ?? []).flatMap((field) => fieldInputs(r.kind, field, recordedInputs)),
      );
      for (const a of r.attributes)
        if (stable.has(a.key) && current[a.name] !== undefined) state[a.name] = current[a.name] ?? null;
      return { new_state: encodeDynamic(state, type), private: priv, diagnostics: [] };
    } catch (e) {
      return { new_state: req.current_state, private: priv, diagnostics: [diag(message(e))] };
    }
  }

  async importResourceState(req: { type_name: string; id: string }) {
    const r = this.resource(req.type_name);
    const type = blockType(r.attributes);
    if (r.kind.importId === undefined)
      return {
        imported_resources: [],
        diagnostics: [diag(`${req.type_name} cannot be imported: the API does not show it again`)],
      };
    try {
      const result = await r.kind.impl.read(req.id, {});
      if (!result.id)
        return {
          imported_resources: [],
          diagnostics: [
            diag(
              `${req.type_name} ${req.id} does not exist`,
              `The import id has the form ${r.kind.importId.form}, such as ${r.kind.importId.example}.`,
            ),
          ],
        };
      const state = stateOf(r, result.id, {
        ...(result.props as Inputs),
        ...((result.inputs as Inputs | undefined) ?? {}),
      });
      // What only the configuration holds (`adopt`, a change's note) is none until it gives one.
      for (const key of r.kind.impl.programInputs ?? []) {
        const a = r.attributes.find((x) => x.key === key);
        if (a !== undefined) state[a.name] = null;
      }
      return {
        imported_resources: [
          { type_name: req.type_name, state: encodeDynamic(state, type), private: Buffer.alloc(0) },
        ],
        diagnostics: [],
      };
    } catch (e) {
      return { imported_resources: [], diagnostics: [diag(message(e))] };
    }
  }

  stopProvider() {
    return { Error: "" };
  }
}

/** Each resource type's input names, from its kind's inputs schema: made once per type. */
const inputKeys = new WeakMap<TfResource, ReadonlySet<string>>();

/** The names of the kind's inputs (`trafficAllocation`, ...): the schema's, the same for every call. */
function inputKeysOf(r: TfResource): ReadonlySet<string> {
  let keys = inputKeys.get(r);
  if (keys === undefined) {
    keys = new Set(Object.keys(r.kind.resource.inputs.shape));
    inputKeys.set(r, keys);
  }
  return keys;
}

/** `Environment "Production" requires approvals`, or `Environments "A", "B" require approvals`. */
function approvalsSummary(envs: readonly { name: string }[]): string {
  const names = envs.map((e) => `"${e.name}"`).join(", ");
  return envs.length === 1
    ? `Environment ${names} requires approvals`
    : `Environments ${names} require approvals`;
}

/** The id and the recorded outputs (provider form) of a resource's state. */
function recorded(r: TfResource, state: TfObject): { id: string; olds: Inputs } {
  const olds = (toProvider(state, blockType(r.attributes), undefined) ?? {}) as Inputs;
  const id = typeof state.id === "string" ? state.id : "";
  delete olds.id;
  return { id, olds };
}

/** A resource's state from the kind's outputs (provider form) and its id. */
function stateOf(r: TfResource, id: string, outs: Inputs): TfObject {
  const state = fromProvider(outs, blockType(r.attributes)) as TfObject;
  state.id = id;
  return state;
}

/** The inputs behind a field of the kind's `diff` answer: its `diffFields` or `replaceReasons` entry, else the input of its name. */
function fieldInputs(kind: Kind, field: string, news: Inputs): string[] {
  const list = kind.impl.diffFields?.[field] ?? kind.impl.replaceReasons?.[field];
  if (list === undefined) return [field];
  const given = list.filter((k) => news[k] !== undefined);
  return given.length > 0 ? [...given] : [...list];
}

/** The id and outputs of a `PartialFailure` (read by shape: the host may load two copies of its module). */
function partialFailure(e: unknown): { id: string; properties: Inputs } | undefined {
  if (!(e instanceof Error) || e.name !== "PartialFailure") return undefined;
  const { id, properties } = e as Error & { id?: unknown; properties?: unknown };
  return typeof id === "string" && properties !== null && typeof properties === "object"
    ? { id, properties: properties as Inputs }
    : undefined;
}

/**
 * The message of a failed create: a conflict with an existing object (`AlreadyExistsError`, read
 * by shape) names the `import` block that takes it over, with the resource type and the object's
 * import id (the protocol gives the provider no resource address).
 */
function createMessage(r: TfResource, inputs: Inputs, e: unknown): string {
  if (!(e instanceof Error) || e.name !== "AlreadyExistsError") return message(e);
  const { describe, detail } = e as Error & { describe?: unknown; detail?: unknown };
  if (typeof describe !== "string") return message(e);
  const form = r.kind.importId?.form;
  const id = form === undefined ? undefined : importIdOf(form, inputs);
  return alreadyExistsMessage(describe, typeof detail === "string" ? detail : "", e.cause, {
    type: r.typeName,
    ...(id === undefined ? {} : { id }),
  });
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** True when a value holds no unknown (for tests). */
export const known = (v: TfValue): boolean => !holdsUnknown(v) && !isUnknown(v);
