/**
 * A flag's definition in each environment (spec §4 "Flag definitions", ref §1.1, §2): get, list,
 * create and full replace (checked first: shapes, bucket sums, known treatments), JSON Patch, delete,
 * kill and restore; a change's `title` and `comment` travel as query parameters.
 * @module
 */
import { invalidInput, parseInput } from "../core/validate-input";
import { adminEndpoints as E } from "./endpoints";
import { AdminApiPart, adminPart, noted } from "./part";
import {
  type ChangeNote,
  type Definition,
  DefinitionBody,
  JsonPatch,
  LIMITS,
  validateDefinition,
} from "./schemas";

/** Per-environment flag definitions (spec §4 "Flag definitions"). */
export class DefinitionsApi extends AdminApiPart {
  /**
   * The definition of a flag (name or id) in an environment (id or name).
   * @throws NotFoundError when the flag has no definition there (spec §7).
   * @example
   * const def = await admin.definitions.get(ws.id, flag.id, "Production");
   */
  async get(wsId: string, flagNameOrId: string, envIdOrName: string): Promise<Definition> {
    return this.request(E.definitions.get, { wsId, flag: flagNameOrId, environment: envIdOrName });
  }

  /** Every definition in one environment (ref §1.1). */
  list(wsId: string, envIdOrName: string, options: { pageSize?: number } = {}): AsyncIterable<Definition> {
    const params = { wsId, environment: envIdOrName };
    return this.offsetPages(E.definitions.list, params, options.pageSize, LIMITS.flagsMax);
  }

  /**
   * Creates the definition of a flag in an environment. The body is checked first: field shapes,
   * bucket sums of 100, known treatments (ref §2); `title` and `comment` go in the body.
   * @example
   * await admin.definitions.create(ws.id, "new-checkout", "Production", {
   *   treatments: [{ name: "on" }, { name: "off" }],
   *   defaultTreatment: "off",
   *   defaultRule: [{ treatment: "off", size: 100 }],
   * });
   */
  async create(
    wsId: string,
    flagName: string,
    envIdOrName: string,
    body: DefinitionBody,
  ): Promise<Definition> {
    const parsed = checkDefinition(body, E.definitions.create);
    return this.request(E.definitions.create, place(wsId, flagName, envIdOrName), { body: parsed });
  }

  /** Replaces the whole definition (ref §2: PUT is a full replace; omitted rules become `[]`). */
  async put(wsId: string, flagName: string, envIdOrName: string, body: DefinitionBody): Promise<Definition> {
    const parsed = checkDefinition(body, E.definitions.put);
    return this.request(E.definitions.put, place(wsId, flagName, envIdOrName), { body: parsed });
  }

  /**
   * Applies a JSON Patch to the definition; `title` and `comment` travel as query parameters
   * (spec §4). Without them, a workspace that requires them answers 400 with an empty body, which
   * becomes an ApiError saying so.
   * @example
   * await admin.definitions.patch(ws.id, "new-checkout", "Production",
   *   [{ op: "replace", path: "/defaultRule", value: [{ treatment: "on", size: 100 }] }],
   *   { title: "Full rollout", comment: "metrics are green" });
   */
  async patch(
    wsId: string,
    flagName: string,
    envIdOrName: string,
    ops: JsonPatch,
    note?: ChangeNote,
  ): Promise<Definition> {
    const parsed = parseInput(JsonPatch, ops, E.definitions.patch, "JSON Patch");
    return this.request(E.definitions.patch, place(wsId, flagName, envIdOrName), {
      body: parsed,
      ...noted(note),
    });
  }

  /** Removes the definition from the environment (`title`/`comment` as query parameters, ref §2). */
  async delete(wsId: string, flagName: string, envIdOrName: string, note?: ChangeNote): Promise<true> {
    return this.request(E.definitions.delete, place(wsId, flagName, envIdOrName), noted(note));
  }

  /** Kills the flag in the environment: everyone gets the default treatment (ref §1.1). */
  async kill(wsId: string, flagName: string, envIdOrName: string, note?: ChangeNote): Promise<Definition> {
    return this.request(E.definitions.kill, place(wsId, flagName, envIdOrName), noted(note));
  }

  /** Undoes {@link kill} (ref §1.1). */
  async restore(wsId: string, flagName: string, envIdOrName: string, note?: ChangeNote): Promise<Definition> {
    return this.request(E.definitions.restore, place(wsId, flagName, envIdOrName), noted(note));
  }
}

/** The path parameters of one flag's definition in one environment. */
function place(wsId: string, flag: string, environment: string) {
  return { wsId, flag, environment };
}

function checkDefinition(body: DefinitionBody, r: (typeof E.definitions)["create" | "put"]) {
  const parsed = parseInput(DefinitionBody, body, r, "definition");
  const problems = validateDefinition(parsed);
  if (problems.length > 0) throw invalidInput(r, "definition", problems);
  return parsed;
}

/** Per-environment definitions, kill and restore. */
export const part = adminPart("definitions", (core) => new DefinitionsApi(core));
