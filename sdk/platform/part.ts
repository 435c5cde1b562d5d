/**
 * A part of the platform client: the namespace it is reached by (`platform.environmentGroups`) and
 * how it is made from the client's HTTP core and account. Each part file of `sdk/platform/` exports
 * its `part` (`export const part = platformPart("environmentGroups", environmentGroupsApi)`);
 * `npm run generate` lists those files in `./parts.ts`, and the client gets one typed member per
 * part from that list ({@link partsBase}), so adding a part is its file alone.
 * @module
 */
import type { EntityCtx } from "./entity-api";

/** One part: its namespace name and its factory. */
export interface PlatformPart<Name extends string = string, Api = unknown> {
  readonly name: Name;
  readonly make: (ctx: EntityCtx) => Api;
}

/** A part named `name`, made by `make` (its type is the namespace's type on the client). */
export const platformPart = <const Name extends string, Api>(
  name: Name,
  make: (ctx: EntityCtx) => Api,
): PlatformPart<Name, Api> => ({ name, make });

/** One member per part: its name, typed by what its factory makes. */
export type PartsOf<T extends readonly PlatformPart[]> = {
  readonly [P in T[number] as P["name"]]: ReturnType<P["make"]>;
};

/**
 * A base class whose instances hold one member per part, each made from the context given to its
 * constructor: the client extends it, so `platform.environmentGroups.create(...)` stays typed.
 */
export function partsBase<const T extends readonly PlatformPart[]>(
  parts: T,
): new (
  ctx: EntityCtx,
) => PartsOf<T> {
  return class {
    constructor(ctx: EntityCtx) {
      for (const p of parts) (this as Record<string, unknown>)[p.name] = p.make(ctx);
    }
  } as unknown as new (
    ctx: EntityCtx,
  ) => PartsOf<T>;
}
