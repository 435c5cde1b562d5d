/**
 * Idempotency helpers shared by the resources' `read`, `create` and `delete`.
 *
 * - `read` of an object deleted outside Pulumi answers "gone": a result with no id, which the
 *   engine's refresh turns into a removal from state (ref pulumi-notes §5.4; the exact wire shape
 *   is pinned by `test/provider/core/lifecycle.test.ts` through the real gRPC host).
 * - `delete` of an object that is already gone succeeds (style-anchors §8 item 6).
 * - A create whose response was lost is recovered by looking the object up by its natural key,
 *   never by creating a duplicate (DESIGN.md "Retries and lost responses"). That look-up is retried
 *   through transient failures: giving up would leave an object the state does not know, and every
 *   later create of it would fail as a duplicate.
 * - `adopt: true` takes over an existing object with the same natural key, since `pulumi import`
 *   does not work for dynamic resources (ref pulumi-notes §5.4, pulumi/pulumi#7534).
 * @module
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { ApiError, isConflict, isNotFound, isOutcomeUnknown } from "../../sdk/core/errors";
import type { CheckSpec } from "./check";
import type { DiffSpec } from "./diff";
import { door } from "./door";
import { dataVerbs, plain, type ResourceHandlers } from "./resource";

/** The `read` result that tells the engine the object no longer exists. */
export const GONE: pulumi.dynamic.ReadResult = Object.freeze({});

/** Runs a read; a `NotFoundError` becomes `undefined`. */
export async function readOrGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/**
 * Runs a delete; "already gone" counts as success. A `NotFoundError` is gone. When the service
 * answers a delete of a missing object with another refusal (the platform answers 400
 * INVALID_REQUEST for connectors, and the status is unverified for pipelines: ref platform §5,
 * §6.2, §12), `confirm` (a read of the object) decides: gone is success, still there re-throws the
 * delete's error. Server errors and lost answers are never taken as gone.
 */
export async function deleteIdempotent(
  remove: () => Promise<unknown>,
  confirm?: () => Promise<unknown>,
): Promise<void> {
  try {
    await remove();
  } catch (e) {
    if (isNotFound(e)) return;
    if (confirm === undefined || !ApiError.isInstance(e) || e.status >= 500 || e.status === 0) throw e;
    if ((await readOrGone(confirm)) === undefined) return;
    throw e;
  }
}

/** How to create an object and find it again by its natural key. */
export interface CreateSpec<T> {
  /** What the object is, for messages: `flag "checkout" in workspace Default`. */
  describe: string;
  /** Finds the object by its natural key; `undefined` when there is none. */
  lookup: () => Promise<T | undefined>;
  /** Creates it. */
  create: () => Promise<T>;
  /** Take over an existing object instead of failing on the duplicate. */
  adopt?: boolean;
}

/** The result of {@link createOrAdopt}: the object and how it came to be ours. */
export interface Created<T> {
  value: T;
  /** `created`: made by this call; `adopted`: existed and `adopt` was set; `recovered`: our own create, whose response was lost. */
  how: "created" | "adopted" | "recovered";
}

/**
 * Creates an object, or takes over an existing one.
 *
 * - `adopt`: looks the object up first and takes it over when it exists (one read, no write).
 * - The create's outcome is unknown (lost response): looks it up (through transient failures);
 *   if it exists, it is ours (`recovered`); if not, the create did not happen and is sent again,
 *   its answer handled the same way ({@link CREATE_ATTEMPTS} creates at most).
 * - The service reports a duplicate: with `adopt`, looks it up and takes it over (a race with
 *   another writer); without, fails with a message that names the object, the `adopt` input and
 *   `flagstack recover` in the door's words (the object may be an interrupted run's: {@link AlreadyExistsError}).
 */
export async function createOrAdopt<T>(spec: CreateSpec<T>): Promise<Created<T>> {
  if (spec.adopt) {
    const existing = await spec.lookup();
    if (existing !== undefined) return { value: existing, how: "adopted" };
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return { value: await spec.create(), how: "created" };
    } catch (e) {
      if (isOutcomeUnknown(e)) {
        const found = await lookupAfterUnknown(spec, e);
        if (found !== undefined) return { value: found, how: "recovered" };
        // Not made: send it again, and treat that answer the same way (it may be lost too).
        if (attempt < CREATE_ATTEMPTS) continue;
        throw e;
      }
      if (isConflict(e)) {
        if (spec.adopt) {
          const found = await spec.lookup();
          if (found !== undefined) return { value: found, how: "adopted" };
        }
        throw new AlreadyExistsError(spec.describe, { cause: e });
      }
      throw e;
    }
  }
}

/**
 * A create met an existing object of the same natural key, and `adopt` was not set. The message
 * names the object, how to take it over and what to run after an interrupted apply (the object may
 * be one a killed run made but never recorded), in the door's words (`./door.ts`): `adopt: true`
 * and `flagstack recover` for Pulumi, an `import` block and `flagstack terraform recover` for
 * Terraform. The Terraform door, which knows the resource type and the object's import id, says it
 * again with them ({@link AlreadyExistsError.message}'s parts are kept for that: {@link describe},
 * {@link detail}). Read by its `name` across copies of this module.
 */
export class AlreadyExistsError extends Error {
  /** What the object is: `a flag named "checkout" in workspace "Default"`. */
  readonly describe: string;
  /** What the message adds after "already exists" (the existing object's values), if anything. */
  readonly detail: string;
  constructor(describe: string, options: { cause?: unknown; detail?: string } = {}) {
    const detail = options.detail ?? "";
    super(alreadyExistsMessage(describe, detail, options.cause), { cause: options.cause });
    this.name = "AlreadyExistsError";
    this.describe = describe;
    this.detail = detail;
  }
}

/**
 * The message of an {@link AlreadyExistsError}: `target`, the resource type and import id, where
 * the door knows them.
 */
export function alreadyExistsMessage(
  describe: string,
  detail: string,
  cause: unknown,
  target?: { type: string; id?: string },
): string {
  const words = door();
  const why = cause instanceof Error ? ` (${cause.message})` : "";
  return `${describe} already exists${detail}. ${words.takeOver(target)} ${words.interruptedRun}${why}`;
}

/** Creates sent at most by one {@link createOrAdopt} when their outcome stays unknown and the object is not there. */
export const CREATE_ATTEMPTS = 3;

/** Attempts of the look-up after a create whose outcome is unknown, and the first wait between them. */
export const LOOKUP_AFTER_UNKNOWN = { attempts: 4, firstDelayMs: 250 } as const;

/** A failure worth another try: no answer, a 429 or a 5xx. */
function transient(e: unknown): boolean {
  return ApiError.isInstance(e) && (e.status === 0 || e.status === 429 || e.status >= 500);
}

/**
 * Looks the object of a create with an unknown outcome up, through transient failures (waits of
 * 250, 500, 1000 ms). When it still cannot tell, the error says that the object may exist and how
 * to take it over.
 */
async function lookupAfterUnknown<T>(spec: CreateSpec<T>, createError: unknown): Promise<T | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spec.lookup();
    } catch (e) {
      if (attempt >= LOOKUP_AFTER_UNKNOWN.attempts || !transient(e)) {
        throw new Error(
          `${spec.describe} may have been created (${(createError as Error).message}), and looking it up failed ` +
            `(${(e as Error).message}). If the next run reports that it already exists, set ${door().adopt} on the resource to take it over.`,
          { cause: e },
        );
      }
      await new Promise((resolve) =>
        setTimeout(resolve, LOOKUP_AFTER_UNKNOWN.firstDelayMs * 2 ** (attempt - 1)),
      );
    }
  }
}

/**
 * An error for a create or update that failed after the object was created: the engine records
 * the object with these outputs (`ErrorResourceInitFailed`, ref pulumi-notes §5.6) instead of
 * losing track of it, and the next `pulumi up` finishes the job.
 */
export class PartialFailure extends Error {
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];
  constructor(id: string, properties: Record<string, unknown>, cause: unknown, step: string) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${step} failed after the object was created (id ${id}): ${reason}`, { cause });
    this.name = "PartialFailure";
    this.id = id;
    this.properties = properties;
    this.reasons = [`${step}: ${reason}`];
  }
}

/**
 * The inputs that only the program holds: those of the schema that the diff never compares
 * (`DiffSpec.fields` are the inputs with a meaning on the service), such as a change's `title`
 * and `comment`, `adopt`, `changeRequest` and `waitForApproval`.
 */
export function programOnlyInputs(schema: z.ZodObject, diff: DiffSpec): string[] {
  return Object.keys(schema.shape).filter((k) => !(diff.fields as readonly string[]).includes(k));
}

/** The verbs a resource file writes: {@link dataVerbs} supplies `configure`, `check` and `diff`. */
export type OwnVerbs<Inputs, Outputs> = Omit<
  ResourceHandlers<Inputs, Outputs>,
  "configure" | "check" | "diff"
>;

/**
 * A resource's provider: {@link dataVerbs} and its own verbs, whose results all pass through one
 * place before the engine sees them. Every `create`, `read` and `update` result (and a
 * {@link PartialFailure}'s outputs) is plain JSON: the engine's protobuf `Struct` cannot carry
 * `undefined` ("Unexpected struct type."), which a path that has nothing to write could otherwise
 * leave where the program gave no `title`. `create` and `update` record the program-only inputs
 * ({@link programOnlyInputs}) exactly as the call's inputs give them, whichever path produced the
 * outputs: a write, nothing to write (a colleague made the same change), or a change request.
 */
export function resourceHandlers<
  S extends z.ZodObject,
  K extends string,
  Outputs extends Record<string, unknown>,
>(
  check: CheckSpec<S>,
  diff: DiffSpec<K>,
  verbs: OwnVerbs<z.output<S>, Outputs>,
): ResourceHandlers<z.output<S>, Outputs> {
  const own = programOnlyInputs(check.schema, diff);
  const carried = <T>(outs: T, program: unknown): T => {
    const from = program as Record<string, unknown>;
    const members: Record<string, unknown> = {};
    for (const k of own) members[k] = from[k];
    return plain({ ...(outs as object), ...members }) as T;
  };
  const plainFailure = (e: unknown): unknown => {
    if (e instanceof PartialFailure)
      (e as { properties: Record<string, unknown> }).properties = plain(e.properties);
    return e;
  };
  return {
    ...dataVerbs(check, diff),
    ...verbs,
    programInputs: own as (keyof z.output<S> & string)[],
    async create(inputs) {
      const r = await verbs.create(inputs).catch((e: unknown) => Promise.reject(plainFailure(e)));
      return r.outs === undefined ? r : { ...r, outs: carried(r.outs, inputs) };
    },
    async read(id, props) {
      const r = await verbs.read(id, props);
      if (r.id === undefined || r.id === "") return r;
      return {
        ...r,
        ...(r.props === undefined ? {} : { props: plain(r.props) }),
        ...(r.inputs === undefined ? {} : { inputs: plain(r.inputs) }),
      };
    },
    async update(id, olds, news) {
      const r = await verbs.update(id, olds, news).catch((e: unknown) => Promise.reject(plainFailure(e)));
      return r.outs === undefined ? r : { ...r, outs: carried(r.outs, news) };
    },
  };
}
