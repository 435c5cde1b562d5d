/**
 * `Trigger`: what starts a pipeline by itself, a webhook (a push or pull request on a repository)
 * or a cron schedule (Go SDK `harness/nextgen/api_triggers.go`; Terraform provider
 * `resource_triggers.go`).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (exactly one of `webhook` and `cron`; a cron expression is five fields, each checked against its range) |
 * | diff | none: scope, pipeline and identifier (these replace), and the YAML compared by meaning |
 * | create | `POST /pipeline/api/triggers` (or with `adopt` the `GET` below first, then one guarded `PUT` when it differs); a create whose response was lost is found again by `GET` |
 * | read | `GET /pipeline/api/triggers/{identifier}`: the stored YAML and the version (`ETag`); missing means deleted outside Pulumi |
 * | update | `PUT /pipeline/api/triggers/{identifier}`: the whole YAML with `If-Match` of the version read (`../core/if-match.ts`) |
 * | delete | `DELETE /pipeline/api/triggers/{identifier}`; already gone is success |
 * @module
 */

import { z } from "zod";
import type { TriggerData } from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import { checkWith, containsUnknown, type InputProblem, UNKNOWN } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { defineKind } from "../core/kind";
import { GONE } from "../core/lifecycle";
import { inputsFrom, sameYaml } from "../core/ng-entity";
import {
  childHead,
  childLifecycle,
  contentUpdate,
  describeChild,
  fillYaml,
  PIPELINE_CHILD_REPLACE_ON_CHANGE,
  type PipelineChildKey,
  pipelineChildKey,
  pipelineChildShape,
  yamlMapping,
} from "../core/pipeline-child";
import { platformApi } from "../core/platform-common";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { TRIGGER_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** The five fields of a cron expression and their ranges (minute, hour, day of month, month, day of week). */
const CRON_FIELDS = [
  ["minute", 0, 59],
  ["hour", 0, 23],
  ["day of month", 1, 31],
  ["month", 1, 12],
  ["day of week", 0, 7],
] as const;

/** Why one field of a cron expression is wrong, or `undefined`. */
function cronFieldProblem(text: string, [label, min, max]: (typeof CRON_FIELDS)[number]): string | undefined {
  for (const part of text.split(",")) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (m === null) return `the ${label} field "${text}" is not *, a number, a range or a step`;
    const nums = [m[2], m[3]].filter((n) => n !== undefined).map(Number);
    if (nums.some((n) => n < min || n > max)) return `the ${label} field "${text}" is outside ${min}-${max}`;
    if (nums.length === 2 && nums[0]! > nums[1]!) return `the ${label} field "${text}" is a backwards range`;
    if (m[4] !== undefined && Number(m[4]) === 0) return `the ${label} field "${text}" has a step of 0`;
  }
  return undefined;
}

/** A cron expression of five fields (`0 3 * * 1-5`). */
export const CronExpression = z.string({ error: "expression must be a string" }).superRefine((text, ctx) => {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== CRON_FIELDS.length) {
    ctx.addIssue({
      code: "custom",
      message: `a cron expression has 5 fields, "${text}" has ${fields.length}`,
    });
    return;
  }
  for (const [i, f] of fields.entries()) {
    const problem = cronFieldProblem(f, CRON_FIELDS[i]!);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  }
});

/** A webhook source: a repository event through a connector. */
export const WebhookInput = z.strictObject({
  /** The repository host: `Github`, `Gitlab`, `Bitbucket`, `AzureRepo`, `Custom`. */
  type: z.enum(["Github", "Gitlab", "Bitbucket", "AzureRepo", "Custom"], {
    error: "webhook type must be Github, Gitlab, Bitbucket, AzureRepo or Custom",
  }),
  /** The event: `Push`, `PullRequest`, `IssueComment`, `Release`, `Tag`, .... */
  event: z.string({ error: "event is required" }).min(1, "event cannot be empty"),
  /** The connector to the repository host. */
  connectorRef: z.string({ error: "connectorRef is required" }).min(1, "connectorRef cannot be empty"),
  /** The repository (for an account-level connector). */
  repoName: z.string().min(1, "repoName cannot be empty").optional(),
  /** The event's actions (`Open`, `Reopen`, `Synchronize`, ... for pull requests). */
  actions: z.array(z.string().min(1)).default([]),
});

/** The inputs of a {@link Trigger}. */
export const TriggerInputs = z.strictObject({
  ...pipelineChildShape,
  /** Whether the trigger runs the pipeline. */
  enabled: z.boolean({ error: "enabled must be true or false" }).default(true),
  /** A webhook source; exactly one of `webhook` and `cron`. */
  webhook: WebhookInput.optional(),
  /** A cron schedule (`{expression: "0 3 * * 1-5"}`). */
  cron: z.strictObject({ expression: CronExpression }).optional(),
  /** Input sets (identifiers) whose values the run takes. */
  inputSetRefs: z.array(z.string().min(1, "an input set ref cannot be empty")).optional(),
});
/** Checked inputs of a {@link Trigger}. */
export type TriggerInputs = z.output<typeof TriggerInputs>;
/** What a program passes to a {@link Trigger}. */
export type TriggerInputValues = z.input<typeof TriggerInputs>;

/** The outputs of a {@link Trigger}. */
export const TriggerOutputs = TriggerInputs.extend({
  /** The YAML sent to (and, after a refresh, stored by) the service. */
  yaml: z.string(),
  /** The trigger's version as last seen (the `ETag`); an update sends it as `If-Match`. */
  version: z.number().int().optional(),
});
/** Outputs of a {@link Trigger}. */
export type TriggerOutputs = z.output<typeof TriggerOutputs>;

function triggerProblems(inputs: TriggerInputs): InputProblem[] {
  return (inputs.webhook === undefined) === (inputs.cron === undefined)
    ? [{ path: ["webhook"], message: "exactly one of webhook and cron is required" }]
    : [];
}

// ---------------------------------------------------------------------------------------------
// The YAML sent

function source(inputs: TriggerInputs) {
  const w = inputs.webhook;
  if (w === undefined) {
    return { type: "Scheduled", spec: { type: "Cron", spec: { expression: inputs.cron?.expression } } };
  }
  const spec = { connectorRef: w.connectorRef, repoName: w.repoName, actions: w.actions };
  return { type: "Webhook", spec: { type: w.type, spec: { type: w.event, spec: spec } } };
}

/** The YAML the service gets. */
export function triggerYaml(inputs: TriggerInputs): string {
  return fillYaml("trigger: {}\n", "trigger", {
    ...childHead(inputs),
    description: inputs.description,
    tags: inputs.tags,
    enabled: inputs.enabled,
    pipelineIdentifier: inputs.pipelineIdentifier,
    source: plain(source(inputs)),
    inputSetRefs: inputs.inputSetRefs,
  });
}

/** The source inputs a live YAML says, or none when it fits neither form. */
function sourceFromYaml(text: string): Pick<TriggerInputs, "webhook" | "cron"> {
  const t = yamlMapping(text, "trigger");
  type Node = { type?: string; spec?: Node } & Record<string, unknown>;
  const s = (typeof t === "string" ? {} : (t.source ?? {})) as Node;
  if (s.type === "Scheduled") {
    const cron = TriggerInputs.shape.cron.safeParse(s.spec?.spec);
    return cron.success && cron.data ? { cron: cron.data } : {};
  }
  const event = s.spec?.spec;
  const webhook = WebhookInput.safeParse({ type: s.spec?.type, event: event?.type, ...event?.spec });
  return webhook.success ? { webhook: webhook.data } : {};
}

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the trigger. */
export const triggerReplaceOnChange =
  PIPELINE_CHILD_REPLACE_ON_CHANGE satisfies readonly (keyof TriggerInputs)[];

type DiffField = (typeof PIPELINE_CHILD_REPLACE_ON_CHANGE)[number] | "content";
type DiffView = Partial<Record<DiffField, unknown>>;

const triggerDiff: DiffSpec<DiffField> = {
  fields: [...PIPELINE_CHILD_REPLACE_ON_CHANGE, "content"],
  replaceOnChange: triggerReplaceOnChange,
  rules: { content: { equals: sameYaml } },
};

const oldView = (o: TriggerOutputs): DiffView => ({ ...o, content: o.yaml });
const newView = (n: TriggerInputs): DiffView => ({
  ...n,
  content: containsUnknown(n) ? UNKNOWN : triggerYaml(n),
});

// ---------------------------------------------------------------------------------------------
// Lifecycle

const describe = (k: PipelineChildKey) => describeChild("trigger", k);

function toOutputs(inputs: TriggerInputs, data: Versioned<TriggerData>): TriggerOutputs {
  return { ...inputs, yaml: data.yaml, version: data.version };
}

const life = childLifecycle({
  noun: "trigger",
  api: () => platformApi().triggers,
  yaml: triggerYaml,
  outputs: toOutputs,
});

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link triggerProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<TriggerInputs, TriggerOutputs> = {
  configure,

  check: checkWith({ schema: TriggerInputs, validate: triggerProblems }),

  async diff(_id, olds, news) {
    return diffInputs(triggerDiff, oldView(olds), newView(news));
  },

  create: (inputs) => life.create(inputs),

  async read(id, props) {
    const prev = props as Partial<TriggerOutputs> | undefined;
    const key = pipelineChildKey(id, prev);
    const data = await life.get(key);
    if (data === undefined) return GONE;
    const t = yamlMapping(data.yaml, "trigger");
    const live = (typeof t === "string" ? {} : t) as { tags?: unknown; inputSetRefs?: unknown };
    const { webhook: _w, cron: _c, yaml: _y, version: _n, inputSetRefs: _r, ...rest } = prev ?? {};
    const inputs = inputsFrom(TriggerInputs, {
      ...rest,
      ...key,
      name: data.name,
      description: data.description ?? "",
      tags: live.tags ?? {},
      enabled: data.enabled ?? true,
      inputSetRefs: live.inputSetRefs,
      ...sourceFromYaml(data.yaml),
    });
    return { id, props: plain(toOutputs(inputs, data)), inputs: plain(inputs) as TriggerOutputs };
  },

  async update(id, olds, news) {
    return contentUpdate({
      describe: describe(olds),
      spec: triggerDiff,
      recorded: olds,
      desired: newView(news),
      view: oldView,
      derive: (inputs) => newView(inputs as TriggerInputs),
      read: () => impl.read(id, olds),
      put: (ifMatch, merged) => life.put(merged ? inputsFrom(TriggerInputs, merged) : news, ifMatch),
      keep: (live) => ({ ...live, adopt: news.adopt }),
    });
  },

  lookup: (inputs) => life.lookup(inputs),

  delete: (_id, props) => life.delete(props),
};

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of a {@link Trigger}: each input may be a `pulumi.Input`, at any depth. */
export type TriggerArgs = ResourceArgs<TriggerInputValues>;

/**
 * A trigger of a pipeline: a webhook or a cron schedule.
 * @example
 * ```ts
 * new Trigger("nightly", {
 *   project: "payments", pipelineIdentifier: deploy.identifier, identifier: "nightly", name: "Nightly",
 *   cron: { expression: "0 3 * * 1-5" }, inputSetRefs: [prod.identifier],
 * });
 * ```
 */
export const Trigger = resourceClass("trigger", TRIGGER_TYPE, TriggerInputs, TriggerOutputs);
/** A {@link Trigger} object: one `Output` per member of {@link TriggerOutputs}. */
export type Trigger = InstanceType<typeof Trigger>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const triggerProviderText = Trigger.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Trigger,
  impl,
  area: "platform",
  replaceOnChange: triggerReplaceOnChange,
  importId: { form: "<org>/<project>/<pipeline>/<identifier>", example: "default/payments/deploy/nightly" },
  policy: ["identifier", "project", "pipelineIdentifier", "inputSetRefs"],
  doc: {
    what: "a pipeline's webhook or cron trigger",
    replaces: "identifier, scope, pipeline",
    updates: "name, enabled, source, input sets (PUT with `If-Match`)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      pipelineIdentifier: "hello",
      identifier: "nightly",
      name: "Nightly",
      cron: { expression: "0 3 * * 1-5" },
    },
    refs: {
      project: { kind: "Project", output: "identifier", shared: true },
      pipelineIdentifier: { kind: "Pipeline", output: "identifier" },
    },
    unique: ["identifier"],
  },
});
