/**
 * A part of the platform client: the namespace it is reached by (`platform.environmentGroups`) and
 * how it is made from the client's HTTP core and account. Each part file of `sdk/platform/` exports
 * its `part` (`export const part = platformPart("environmentGroups", environmentGroupsApi)`);
 * `npm run generate` lists those files in `./parts.ts`, and the client gets one typed member per
 * part from that list ({@link partsBase}), so adding a part is its file alone. The mechanism is the
 * admin client's too (`../core/parts.ts`).
 * @module
 */
import { partsBase as basedOn, type Part } from "../core/parts";
import type { EntityCtx } from "./entity-api";

export type { PartsOf } from "../core/parts";

/** One part: its namespace name and its factory. */
export type PlatformPart<Name extends string = string, Api = unknown> = Part<EntityCtx, Name, Api>;

/** A part named `name`, made by `make` (its type is the namespace's type on the client). */
export const platformPart = <const Name extends string, Api>(
  name: Name,
  make: (ctx: EntityCtx) => Api,
): PlatformPart<Name, Api> => ({ name, make });

/**
 * A base class whose instances hold one member per part, each made from the context given to its
 * constructor: the client extends it, so `platform.environmentGroups.create(...)` stays typed.
 */
export const partsBase = <const T extends readonly PlatformPart[]>(parts: T) => basedOn<EntityCtx, T>(parts);
